"""A fake model provider speaking real wire protocols over real sockets.

Used by tests (in-process, ``FakeProvider(profile)`` on 127.0.0.1 port 0), by
benchmarks and by hand (``rabench fake-provider --port P --profile NAME``).
See docs/targets.md, "Fake provider".
"""

from rabench.fakeprovider.app import BackgroundFakeProvider, FakeApp, FakeProvider, RecordedRequest, load_suite_labels
from rabench.fakeprovider.profile import BEHAVIOURS, BUILTIN, Latency, ModelProfile, Profile, load_profile

__all__ = [
    "BEHAVIOURS",
    "BUILTIN",
    "BackgroundFakeProvider",
    "FakeApp",
    "FakeProvider",
    "Latency",
    "ModelProfile",
    "Profile",
    "RecordedRequest",
    "load_profile",
    "load_suite_labels",
]
