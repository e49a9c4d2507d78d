"""What the fake provider does with each request: a profile of scripted behaviours.

Why deterministic per image: under concurrency, requests arrive in any order, so
a behaviour drawn in arrival order would make attempt counts irreproducible.
Instead each request is keyed by (model, sha256 of the image it carries, n = how
many requests with that model and image came before). ``script[n]`` is used
while it lasts, then a draw from ``mix`` with a RNG seeded from (seed, model,
image, n). The same run against the same profile therefore sees the same
behaviours, and "the 1st attempt gets 429, the 2nd 503, the 3rd an answer" is
expressible.
"""

from __future__ import annotations

import hashlib
import math
import random
import tomllib
from pathlib import Path
from typing import Literal

import msgspec

from rabench.errors import UserError

HTTP_BEHAVIOURS = frozenset({"400", "401", "403", "404", "408", "422", "429", "500", "502", "503", "529"})
BEHAVIOURS = (
    frozenset(
        {
            "right",
            "wrong",
            "unreadable",
            "refusal",
            "content_filter",
            "other_model",
            "malformed",
            "empty",
            "reset",
            "hang",
        }
    )
    | HTTP_BEHAVIOURS
)


class Latency(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """Delay before answering: fixed ``ms``, uniform ``[min_ms, max_ms]``, or lognormal."""

    dist: Literal["fixed", "uniform", "lognormal"] = "fixed"
    ms: float = 0.0
    min_ms: float = 0.0
    max_ms: float = 0.0
    median_ms: float = 0.0
    sigma: float = 0.5

    def draw(self, rng: random.Random) -> float:
        """Seconds."""
        if self.dist == "uniform":
            return rng.uniform(self.min_ms, self.max_ms) / 1000
        if self.dist == "lognormal":
            return rng.lognormvariate(math.log(max(self.median_ms, 1e-3)), self.sigma) / 1000
        return self.ms / 1000


class ModelProfile(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    latency: Latency = Latency()
    mix: dict[str, float] = msgspec.field(default_factory=lambda: {"right": 1.0})
    script: list[str] = []
    retry_after: str | None = "1"  # Retry-After header on 429/503 (None: no header)
    hang_s: float = 3600.0  # how long "hang" waits before answering
    answer_model: str | None = None  # model id to report ("{model}" = the requested one)
    other_model: str = "fake-other-model"
    echo_key: bool = False  # 4xx messages quote the key, as some providers do
    input_tokens: int = 1500
    output_tokens: int = 250
    # A provider's concurrency limit: while this many requests for the model are being
    # answered, another one gets 429 at once (0 = no limit). Arrival order decides, as at a
    # real provider, so this is the one behaviour that is not deterministic per image.
    max_in_flight: int = 0
    batch_polls: int = 1  # batch APIs: polls answered "in progress" before a batch ends
    batch_expire: bool = False  # batch APIs: the batch expires, every other request unanswered

    def validate(self, where: str) -> None:
        for name in list(self.mix) + list(self.script):
            if name not in BEHAVIOURS:
                raise UserError(f"{where}: unknown behaviour {name!r} (one of {', '.join(sorted(BEHAVIOURS))})")
        if any(w < 0 for w in self.mix.values()) or not sum(self.mix.values()) > 0:
            raise UserError(f"{where}: mix weights must be >= 0 with a positive sum")


class Profile(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    name: str = "custom"
    seed: int = 0
    require_key: bool = True  # answer 401 when the provider's auth header is missing
    default: ModelProfile = ModelProfile()
    models: dict[str, ModelProfile] = {}  # per requested model id
    prices: dict[str, list[float]] = {}  # gateway /v1/models: id -> [input, output] USD/M tokens

    def for_model(self, model: str) -> ModelProfile:
        return self.models.get(model, self.default)

    def choose(self, model: str, image_sha256: str, n: int) -> tuple[str, float, random.Random]:
        """(behaviour, latency seconds, rng for the answer) for the n-th such request."""
        mp = self.for_model(model)
        digest = hashlib.sha256(f"{self.seed}|{model}|{image_sha256}|{n}".encode()).digest()
        rng = random.Random(int.from_bytes(digest[:8], "big"))
        if n < len(mp.script):
            behaviour = mp.script[n]
        else:
            names = sorted(mp.mix)
            behaviour = rng.choices(names, weights=[mp.mix[k] for k in names])[0]
        return behaviour, mp.latency.draw(rng), rng


_FAST = Latency(dist="uniform", min_ms=2, max_ms=15)
BUILTIN: dict[str, Profile] = {
    "healthy": Profile(name="healthy", default=ModelProfile(latency=_FAST)),
    # First attempt 429, second 503, then right answers: every check needs 3 attempts.
    "flaky": Profile(
        name="flaky",
        default=ModelProfile(latency=_FAST, script=["429", "503"], retry_after="0"),
    ),
    # Answers after 30 s: with a shorter per-attempt timeout every attempt times out.
    "slow": Profile(name="slow", default=ModelProfile(latency=Latency(ms=30_000))),
    # An account limit of 8 calls in flight: above it, 429 without a Retry-After.
    "limited": Profile(
        name="limited",
        default=ModelProfile(latency=Latency(dist="uniform", min_ms=20, max_ms=40), max_in_flight=8, retry_after=None),
    ),
    # A bit of everything, weighted like a bad day at a provider.
    "chaos": Profile(
        name="chaos",
        default=ModelProfile(
            latency=Latency(dist="lognormal", median_ms=40, sigma=0.6),
            retry_after="0",
            mix={
                "right": 0.55,
                "wrong": 0.1,
                "unreadable": 0.05,
                "refusal": 0.03,
                "content_filter": 0.02,
                "other_model": 0.02,
                "malformed": 0.03,
                "empty": 0.02,
                "reset": 0.04,
                "429": 0.06,
                "500": 0.03,
                "502": 0.02,
                "503": 0.03,
            },
        ),
    ),
}


def load_profile(spec: str) -> Profile:
    """A built-in profile name or a TOML file (see docs/targets.md, "Fake provider")."""
    if spec in BUILTIN:
        profile = BUILTIN[spec]
    else:
        path = Path(spec)
        if not path.is_file():
            raise UserError(f"profile {spec!r}: not a built-in ({', '.join(BUILTIN)}) nor a file")
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
            data.setdefault("name", path.stem)
            profile = msgspec.convert(data, Profile)
        except (tomllib.TOMLDecodeError, msgspec.ValidationError, UnicodeDecodeError) as exc:
            raise UserError(f"{path}: bad profile: {exc}") from None
    profile.default.validate(f"profile {profile.name} [default]")
    for model, mp in profile.models.items():
        mp.validate(f"profile {profile.name} [models.{model!r}]")
    return profile
