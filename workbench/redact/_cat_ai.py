"""Vendor rules: LLM and AI APIs (OpenAI and OpenAI-compatible ``sk-`` keys, Anthropic,
Hugging Face, Groq, Replicate, Perplexity, xAI, OpenRouter, LangSmith, Langfuse,
Pinecone, Tavily, Fireworks, Cerebras, Anyscale; Cohere, Mistral, Together, Deepgram,
AssemblyAI, ElevenLabs, Voyage and Weights & Biases by the name they are assigned to).

Agent traces carry these more than any other kind: the agent's own model key in an
env dump, a provider SDK's debug log, a tool that calls a second model.
"""

from __future__ import annotations

from ._cat_rule import STRICT, WORD_END, ContextRule, Rule, context_rule, token_rule

__all__ = ["CONTEXT_RULES", "RULES"]

_HEX = "[0-9a-f]"

RULES: tuple[Rule, ...] = (
    token_rule("anthropic-api-key", ["sk-ant-api"], r"\d\d-[A-Za-z0-9_-]{80,120}",
               "Anthropic API key", end=WORD_END, keywords=["sk-ant-"]),
    token_rule("anthropic-admin-key", ["sk-ant-admin"], r"\d\d-[A-Za-z0-9_-]{80,120}",
               "Anthropic Admin API key", end=WORD_END, keywords=["sk-ant-"]),
    token_rule("anthropic-oauth-token", ["sk-ant-oat", "sk-ant-ort", "sk-ant-sid"],
               r"\d\d-[A-Za-z0-9_-]{40,200}",
               "Anthropic OAuth access or refresh token, or session key", end=WORD_END,
               keywords=["sk-ant-"]),
    token_rule("openrouter-api-key", ["sk-or-v1-"], f"{_HEX}{{64}}", "OpenRouter API key",
               keywords=["sk-or-"]),
    token_rule("langfuse-secret-key", ["sk-lf-"], "[a-f0-9-]{36}",
               "Langfuse secret key (its pk-lf- public key is not a secret)",
               end=WORD_END),
    # OpenAI project, service account, admin and user keys (all hold T3BlbkFJ, base64
    # of "OpenAI", in the middle), and the 32-48 character sk- keys that many
    # OpenAI-compatible providers (DeepSeek, Moonshot, Qwen/DashScope…) hand out.
    token_rule("openai-api-key", ["sk-proj-", "sk-svcacct-", "sk-admin-", "sk-None-"],
               "[A-Za-z0-9_-]{40,250}", "OpenAI project, service account or admin key",
               end=WORD_END, keywords=["sk-"]),
    token_rule("openai-api-key", ["sk-"],
               r"(?!ant-|or-|lf-|proj-|svcacct-|admin-|None-)[A-Za-z0-9]{20}T3BlbkFJ"
               r"[A-Za-z0-9]{20}|(?!ant-|or-|lf-)[A-Za-z0-9]{32,64}",
               "OpenAI user key (sk- with T3BlbkFJ) or an OpenAI-compatible sk- key",
               end=WORD_END, glue=STRICT),
    token_rule("huggingface-token", ["hf_"], "[A-Za-z0-9]{34,40}",
               "Hugging Face user access token"),
    token_rule("huggingface-token", ["api_org_"], "[A-Za-z0-9]{34}",
               "Hugging Face organization API token"),
    token_rule("groq-api-key", ["gsk_"], "[A-Za-z0-9]{52}", "Groq API key"),
    token_rule("replicate-api-token", ["r8_"], "[A-Za-z0-9]{37}", "Replicate API token"),
    token_rule("perplexity-api-key", ["pplx-"], "[A-Za-z0-9]{48}", "Perplexity API key"),
    token_rule("xai-api-key", ["xai-"], "[A-Za-z0-9]{80}", "xAI (Grok) API key"),
    token_rule("langsmith-api-key", ["lsv2_pt_", "lsv2_sk_"], f"{_HEX}{{32}}_{_HEX}{{10}}",
               "LangSmith personal access token or service key", keywords=["lsv2_"]),
    token_rule("pinecone-api-key", ["pcsk_"], "[A-Za-z0-9_]{40,120}", "Pinecone API key",
               end=WORD_END),
    token_rule("tavily-api-key", ["tvly-"], "(?:dev-|prod-)?[A-Za-z0-9]{32}",
               "Tavily API key"),
    token_rule("fireworks-api-key", ["fw_"], "[A-Za-z0-9]{24}", "Fireworks AI API key",
               glue=STRICT, entropy=3.5),
    token_rule("cerebras-api-key", ["csk-"], "[a-z0-9]{48}", "Cerebras API key"),
    token_rule("anyscale-api-key", ["esecret_"], "[a-z0-9]{26}", "Anyscale endpoint key"),
)

CONTEXT_RULES: tuple[ContextRule, ...] = (
    context_rule("cohere-api-key", ["cohere", "co_api"], r"[A-Za-z0-9]{40}", "Cohere API key",
                 entropy=3.5),
    context_rule("mistral-api-key", ["mistral"], r"[A-Za-z0-9]{32}", "Mistral AI API key"),
    context_rule("together-api-key", ["together"], r"[a-f0-9]{64}|tgp_v1_[A-Za-z0-9_-]{40,}",
                 "Together AI API key"),
    context_rule("deepgram-api-key", ["deepgram"], r"[a-f0-9]{40}", "Deepgram API key"),
    context_rule("assemblyai-api-key", ["assemblyai", "assembly_ai"], r"[a-f0-9]{32}",
                 "AssemblyAI API key"),
    context_rule("elevenlabs-api-key", ["elevenlabs", "eleven_labs", "xi_api", "xi-api"],
                 r"(?:sk_)?[a-f0-9]{32,48}", "ElevenLabs API key"),
    context_rule("voyage-api-key", ["voyage"], r"pa-[A-Za-z0-9_-]{40,}", "Voyage AI API key"),
    context_rule("wandb-api-key", ["wandb"], r"[a-f0-9]{40}|(?:local-)?[a-f0-9]{40,}",
                 "Weights & Biases API key"),
    context_rule("openai-api-key", ["openai", "deepseek", "moonshot", "dashscope", "qwen"],
                 r"sk-[A-Za-z0-9_-]{20,250}", "OpenAI or OpenAI-compatible key under a "
                 "provider name"),
)
