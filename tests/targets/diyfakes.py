"""Constants shared by the DIY target tests (keys, providers and their auth styles)."""

KEYS = {
    "OPENAI_API_KEY": "sk-test-openai-0123456789",
    "AI_GATEWAY_API_KEY": "vck_test_gateway_0123456789",
    "ANTHROPIC_API_KEY": "sk-ant-test-0123456789",
    "GEMINI_API_KEY": "gemini-test-key-0123456789",
}

# (provider, pinned model, auth header, how the header carries the key)
PROVIDERS = [
    ("openai", "gpt-5", "authorization", "Bearer {key}", "OPENAI_API_KEY"),
    ("gateway", "openai/gpt-5", "authorization", "Bearer {key}", "AI_GATEWAY_API_KEY"),
    ("openai-compatible", "llava-1.6", None, None, None),
    ("anthropic", "claude-sonnet-4-5", "x-api-key", "{key}", "ANTHROPIC_API_KEY"),
    ("gemini", "gemini-2.5-flash", "x-goog-api-key", "{key}", "GEMINI_API_KEY"),
]
