"""Vendor rules: cloud and infrastructure providers (AWS, Google Cloud, Azure, Alibaba,
Tencent, IBM, DigitalOcean, Heroku, Cloudflare, Fastly, Linode, Scaleway, Vercel,
Netlify, Render, Fly.io, HashiCorp, Doppler, Pulumi, Databricks, Supabase, PlanetScale,
Okta, Yandex, JFrog, Kubernetes, Dynatrace, ClickHouse…).

Written from each provider's documented token format; see docs/redact-detectors.md.
"""

from __future__ import annotations

import base64
import binascii

from ._cat_rule import (
    B64_END,
    DOT_END,
    WORD_END,
    ContextRule,
    Rule,
    context_rule,
    pattern_rule,
    token_rule,
)

__all__ = ["CONTEXT_RULES", "RULES"]


def _is_base64_private_key(secret: str) -> bool:
    """A base64 blob (kubeconfig ``client-key-data``) that decodes to a PEM private key."""
    try:
        head = base64.b64decode(secret[:4 * (min(len(secret), 800) // 4)] + "==", validate=False)
    except (binascii.Error, ValueError):
        return False
    return b"PRIVATE KEY" in head


_HEX = "[0-9a-f]"
_UUID = f"{_HEX}{{8}}-{_HEX}{{4}}-{_HEX}{{4}}-{_HEX}{{4}}-{_HEX}{{12}}"
_UUID_ANYCASE = "[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"

RULES: tuple[Rule, ...] = (
    # --- AWS ------------------------------------------------------------------------
    token_rule("aws-access-key-id", ["AKIA", "ASIA", "ABIA", "ACCA"], "[A-Z2-7]{16}",
               "AWS access key id (AKIA long-term, ASIA temporary): the public half of an "
               "access key, paired with a secret access key", entropy=3.0),
    token_rule("aws-access-key-id", ["A3T"], "[A-Z0-9][A-Z2-7]{16}",
               "AWS access key id, older A3T form", entropy=3.0),
    token_rule("aws-session-token",
               ["IQoJb3JpZ2luX2Vj", "FwoGZXIvYXdz", "AQoDYXdz", "AgoJb3JpZ2luX2Vj", "IQoDYXdz"],
               "[A-Za-z0-9+/]{80,}={0,2}",
               "AWS STS session token (base64, starts with the encoded 'origin'/'aws' "
               "header)", end=B64_END, entropy=4.0),
    token_rule("aws-bedrock-api-key", ["ABSK"], "[A-Za-z0-9+/]{100,300}={0,2}",
               "Amazon Bedrock long-term API key", end=B64_END, entropy=3.5),
    token_rule("aws-bedrock-api-key", ["bedrock-api-key-YmVkcm9jay5hbWF6b25hd3MuY29t"],
               "[A-Za-z0-9+/=%&_.-]*", "Amazon Bedrock short-term API key (a presigned "
               "request encoded after the bedrock-api-key- prefix)", end=WORD_END,
               entropy=None),
    # --- Google Cloud -------------------------------------------------------------
    token_rule("gcp-api-key", ["AIza"], "[A-Za-z0-9_-]{35}",
               "Google API key (Cloud, Maps, Firebase, Gemini)", end=WORD_END, entropy=3.5),
    token_rule("gcp-oauth-client-secret", ["GOCSPX-"], "[A-Za-z0-9_-]{28}",
               "Google OAuth client secret", end=WORD_END),
    token_rule("gcp-oauth-access-token", ["ya29."], "[A-Za-z0-9_-]{30,}",
               "Google OAuth 2.0 access token", end=WORD_END, entropy=3.5),
    token_rule("gcp-oauth-refresh-token", ["1//0"], "[A-Za-z0-9_-]{40,}",
               "Google OAuth 2.0 refresh token", end=WORD_END, entropy=3.5),
    # --- Azure --------------------------------------------------------------------
    pattern_rule("azure-storage-account-key", ["AccountKey="],
                 r"AccountKey=(?P<secret>[A-Za-z0-9+/]{86}==)",
                 "Azure Storage account key in a connection string", entropy=4.0),
    pattern_rule("azure-shared-access-key", ["SharedAccessKey="],
                 r"SharedAccessKey=(?P<secret>[A-Za-z0-9+/]{42,43}=)",
                 "Azure Service Bus / Event Hubs / IoT Hub shared access key in a "
                 "connection string", entropy=3.5),
    pattern_rule("azure-sas-signature", ["sig="],
                 r"sig=(?<=[?&;]sig=)(?P<secret>[A-Za-z0-9%+/=_-]{40,})"
                 r"(?=[&#\s\"'<>]|$)", "Azure shared access signature (sig= of a SAS URL "
                 "or token): grants access to whoever holds the URL", entropy=3.5),
    pattern_rule("azure-ad-client-secret", ["Q~"],
                 r"(?P<secret>[A-Za-z0-9_~.](?<![\x00A-Za-z0-9_~.-][A-Za-z0-9_~.])[A-Za-z0-9_~.]{2}\dQ~"
                 r"[A-Za-z0-9_~.-]{31,34})"
                 r"(?![\x00A-Za-z0-9_~-]|\.[A-Za-z0-9_~-])",
                 "Microsoft Entra ID (Azure AD) application client secret", entropy=3.0),
    pattern_rule("azure-devops-pat", ["AZDO"],
                 r"(?P<secret>[A-Za-z0-9](?<![\x00A-Za-z0-9]{2})[A-Za-z0-9]{75}AZDO[A-Za-z0-9]{4})"
                 r"(?![\x00A-Za-z0-9])",
                 "Azure DevOps personal access token (84 characters, AZDO signature)",
                 entropy=3.5),
    # --- Alibaba, Tencent, Yandex, Scaleway, DigitalOcean -------------------------
    token_rule("alibaba-access-key-id", ["LTAI"], "[A-Za-z0-9]{12,20}",
               "Alibaba Cloud AccessKey ID", entropy=3.0),
    token_rule("tencent-secret-id", ["AKID"], "[A-Za-z0-9]{32}",
               "Tencent Cloud SecretId", entropy=3.5),
    token_rule("yandex-iam-token", ["t1."], r"[A-Za-z0-9_-]+=*\.[A-Za-z0-9_-]{86}=*",
               "Yandex Cloud IAM token", end=WORD_END, entropy=3.5),
    token_rule("yandex-api-key", ["AQVN"], "[A-Za-z0-9_-]{35,38}",
               "Yandex Cloud API key", end=WORD_END, entropy=3.5),
    token_rule("scaleway-access-key", ["SCW"], "[A-Z0-9]{17}",
               "Scaleway access key id", entropy=3.0),
    token_rule("digitalocean-pat", ["dop_v1_"], f"{_HEX}{{64}}",
               "DigitalOcean personal access token"),
    token_rule("digitalocean-oauth-token", ["doo_v1_"], f"{_HEX}{{64}}",
               "DigitalOcean OAuth access token"),
    token_rule("digitalocean-refresh-token", ["dor_v1_"], "[0-9a-fA-F]{64}",
               "DigitalOcean OAuth refresh token"),
    token_rule("digitalocean-spaces-key", ["DO00"], "[A-Z0-9]{16}",
               "DigitalOcean Spaces access key id", entropy=3.0),
    # --- PaaS -----------------------------------------------------------------------
    token_rule("heroku-api-key", ["HRKU-"], "[A-Za-z0-9_-]{60}",
               "Heroku API key (HRKU- format)", end=WORD_END, entropy=3.5),
    token_rule("netlify-pat", ["nfp_"], "[A-Za-z0-9]{36}", "Netlify personal access token"),
    token_rule("render-api-key", ["rnd_"], "[A-Za-z0-9]{32}", "Render API key"),
    token_rule("flyio-token", ["fo1_"], "[A-Za-z0-9_-]{43}", "Fly.io OAuth token",
               end=WORD_END, entropy=3.5),
    token_rule("flyio-token", ["fm1r_", "fm1a_", "fm2_"], "[A-Za-z0-9+/]{100,}={0,3}",
               "Fly.io macaroon token", end=B64_END, entropy=4.0,
               keywords=["fm1r_", "fm1a_", "fm2_"]),
    token_rule("cloudflare-origin-ca-key", ["v1.0-"], f"{_HEX}{{24}}-{_HEX}{{146}}",
               "Cloudflare Origin CA key"),
    # --- HashiCorp, Doppler, Pulumi, Databricks, Supabase, PlanetScale ----------------
    token_rule("vault-token", ["hvs."], "[A-Za-z0-9_-]{90,120}",
               "HashiCorp Vault service token", end=WORD_END, entropy=3.5),
    token_rule("vault-token", ["hvb."], "[A-Za-z0-9_-]{138,300}",
               "HashiCorp Vault batch token", end=WORD_END, entropy=4.0),
    token_rule("vault-token", ["hvr."], "[A-Za-z0-9_-]{20,}",
               "HashiCorp Vault recovery token", end=WORD_END, entropy=3.5),
    # "s." ends every other sentence: the legacy form is found by its shape
    pattern_rule("vault-token", [], keywords=["s."],
                 anchor=r"\.(?=s(?![\x00A-Za-z0-9_.-]))(?<=[A-Za-z0-9]{24}\.)",
                 pattern=r"(?P<secret>s\.(?<![\x00A-Za-z0-9_.-]s\.)(?=[A-Za-z]*\d)[A-Za-z0-9]{24})"
                 r"(?![\x00A-Za-z0-9_.-])",
                 description="HashiCorp Vault service token, legacy s. form (24 characters "
                 "with a digit)", entropy=3.5),
    pattern_rule("terraform-cloud-token", [".atlasv1."],
                 r"(?P<secret>[A-Za-z0-9](?<![\x00A-Za-z0-9]{2})[A-Za-z0-9]{13}\.atlasv1\.[A-Za-z0-9_=-]{60,70})"
                 + WORD_END, "Terraform Cloud / Enterprise API token", entropy=3.5),
    token_rule("doppler-token", ["dp.pt.", "dp.st.", "dp.sa.", "dp.ct.", "dp.scim.",
                                 "dp.audit."], "[A-Za-z0-9]{40,44}",
               "Doppler token (personal, service, service account, CLI, SCIM, audit)",
               keywords=["dp."]),
    token_rule("pulumi-access-token", ["pul-"], f"{_HEX}{{40}}", "Pulumi access token"),
    token_rule("databricks-token", ["dapi"], f"{_HEX}{{32}}(?:-\\d)?",
               "Databricks personal access token", end=WORD_END),
    token_rule("supabase-token", ["sbp_"], f"{_HEX}{{40}}",
               "Supabase management API personal access token"),
    token_rule("supabase-token", ["sb_secret_"], "[A-Za-z0-9_-]{20,}",
               "Supabase secret API key", end=WORD_END),
    token_rule("planetscale-token", ["pscale_tkn_", "pscale_oauth_", "pscale_pw_"],
               "[A-Za-z0-9_=.-]{32,64}",
               "PlanetScale service token, OAuth token or database password",
               end=DOT_END, keywords=["pscale_"]),
    # --- identity, observability, data ------------------------------------------------
    pattern_rule("okta-api-token", ["SSWS"],
                 r"SSWS[ \t]+(?P<secret>00[A-Za-z0-9_-]{40})" + WORD_END,
                 "Okta API token in an SSWS Authorization header", entropy=3.5),
    token_rule("dynatrace-api-token", ["dt0c01."], r"[A-Za-z0-9]{24}\.[A-Za-z0-9]{64}",
               "Dynatrace API token", entropy=3.5),
    token_rule("clickhouse-cloud-key", ["4b1d"], "[A-Za-z0-9]{38}",
               "ClickHouse Cloud API secret key", entropy=3.5),
    token_rule("jfrog-api-key", ["AKCp"], "[A-Za-z0-9]{69}", "JFrog Artifactory API key",
               entropy=4.0),
    token_rule("jfrog-reference-token", ["cmVmd"], "[A-Za-z0-9]{59}",
               "JFrog Artifactory reference token (base64 of reftkn:…)", entropy=4.0),
    token_rule("private-key-base64", ["LS0tLS1CRUdJTi"], "[A-Za-z0-9+/]{40,}={0,2}",
               "a PEM private key, base64-encoded (kubeconfig client-key-data, Helm "
               "values, Kubernetes Secret data)", end=B64_END, entropy=None,
               check=_is_base64_private_key),
    pattern_rule("authress-access-key", [".acc_", ".acc-"],
                 r"(?<![\x00A-Za-z0-9])(?P<secret>(?:sc|ext|scauth|authress)_[A-Za-z0-9]{5,30}"
                 r"\.[A-Za-z0-9]{4,6}\.acc[_-][A-Za-z0-9-]{10,32}\.[A-Za-z0-9+/_=-]{30,120})"
                 + DOT_END, "Authress service client access key", entropy=3.0),
    token_rule("defined-networking-token", ["dnkey-"],
               "[a-z0-9=_-]{26}-[a-z0-9=_-]{52}", "Defined Networking (Nebula) API token",
               end=WORD_END),
)

CONTEXT_RULES: tuple[ContextRule, ...] = (
    context_rule("aws-secret-access-key", ["aws", "secretaccesskey", "secret_access_key",
                                           "secret-access-key"],
                 r"[A-Za-z0-9/+]{40}", "AWS secret access key (40 base64 characters under "
                 "an AWS or secret-access-key name)", entropy=3.5),
    context_rule("gcp-api-key", ["gcp", "google", "gemini", "firebase"],
                 r"AIza[A-Za-z0-9_-]{35}", "Google API key under a Google name"),
    context_rule("azure-key", ["azure", "apim", "cognitive"],
                 r"[A-Za-z0-9]{32}|[A-Za-z0-9]{84}", "Azure service key (Cognitive "
                 "Services, Azure OpenAI, API Management: 32 or 84 characters)"),
    context_rule("alibaba-secret-key", ["alibaba", "aliyun"], r"[A-Za-z0-9]{30}",
                 "Alibaba Cloud AccessKey secret"),
    context_rule("ibm-cloud-api-key", ["ibm"], r"[A-Za-z0-9_-]{44}", "IBM Cloud API key"),
    context_rule("heroku-api-key", ["heroku"], _UUID_ANYCASE + "|HRKU-[A-Za-z0-9_-]{60}",
                 "Heroku API key (a UUID under a Heroku name)", entropy=None),
    context_rule("cloudflare-api-token", ["cloudflare", "cf_api", "cf-api", "cfapi"],
                 r"[A-Za-z0-9_-]{40}|[a-f0-9]{37}",
                 "Cloudflare API token (40 characters) or global API key (37 hex)"),
    context_rule("fastly-api-token", ["fastly"], r"[A-Za-z0-9_-]{32}", "Fastly API token"),
    context_rule("linode-token", ["linode"], r"[a-f0-9]{64}", "Linode (Akamai) API token"),
    context_rule("scaleway-secret-key", ["scw", "scaleway"], _UUID,
                 "Scaleway secret key (a UUID)", entropy=None),
    context_rule("vercel-token", ["vercel"], r"[A-Za-z0-9]{24}", "Vercel access token"),
    context_rule("netlify-token", ["netlify"], r"[A-Za-z0-9_-]{40,46}",
                 "Netlify access token"),
    context_rule("okta-api-token", ["okta"], r"00[A-Za-z0-9_-]{40}", "Okta API token"),
    context_rule("yandex-access-key", ["yandex"], r"YC[A-Za-z0-9_-]{38}",
                 "Yandex Cloud static access key secret"),
    context_rule("datadog-key", ["datadog", "dd_api", "dd_app", "dd-api", "dd-app"],
                 r"[a-f0-9]{32}|[a-f0-9]{40}", "Datadog API key (32 hex) or application "
                 "key (40 hex)"),
    context_rule("new-relic-key", ["newrelic", "new_relic", "new-relic", "nr_"],
                 r"[A-Za-z0-9]{40}|[A-Za-z0-9]{64}",
                 "New Relic license or user key without its prefix"),
    context_rule("sumologic-key", ["sumo"], r"su[A-Za-z0-9]{12}|[A-Za-z0-9]{64}",
                 "Sumo Logic access id or access key"),
    context_rule("confluent-key", ["confluent"], r"[A-Za-z0-9]{16}|[A-Za-z0-9+/]{64}",
                 "Confluent Cloud API key or secret"),
)
