"""Vendor rules: chat, email and messaging, payments and commerce, social and other SaaS
APIs (Slack, Discord, Telegram, Twilio, Microsoft Teams, SendGrid, Mailgun, Mailchimp,
Brevo, Stripe, Square, PayPal/Braintree, Adyen, Shopify, Plaid, Facebook, Twitter/X,
Dropbox, Mapbox, Firebase, MaxMind, EasyPost, Shippo, Duffel, Flutterwave, GoCardless,
Lob, Sidekiq…).

Publishable keys (Stripe ``pk_``, Mapbox ``pk.``, Flutterwave ``FLWPUBK``, Lob
``*_pub_``, Mailgun ``pubkey-``) are public by design and never hits (``is_public``).
Twilio account SIDs (``AC…``) name an account, like an AWS account id: not secrets.
"""

from __future__ import annotations

import base64
import binascii

from ._cat_rule import (
    B64_END,
    DOT_END,
    STRICT,
    WORD_END,
    ContextRule,
    Rule,
    context_rule,
    pattern_rule,
    token_rule,
)

__all__ = ["CONTEXT_RULES", "RULES"]

_HEX = "[0-9a-f]"
_UUID = f"{_HEX}{{8}}-{_HEX}{{4}}-{_HEX}{{4}}-{_HEX}{{4}}-{_HEX}{{12}}"

def _snowflake_head(token: str) -> bool:
    """A Discord bot token's first part is the bot's id (a snowflake) in base64."""
    head = token.split(".", 1)[0]
    try:
        ident = base64.urlsafe_b64decode(head + "=" * (-len(head) % 4))
    except (binascii.Error, ValueError):
        return False
    return ident.isdigit() and 15 <= len(ident) <= 21


RULES: tuple[Rule, ...] = (
    # --- Slack ----------------------------------------------------------------------
    token_rule("slack-token", ["xoxb-", "xoxp-", "xoxa-", "xoxo-", "xoxs-", "xoxr-",
                               "xoxe-"], "[0-9A-Za-z-]{10,250}",
               "Slack bot, user, workspace, legacy or refresh token", end=WORD_END,
               keywords=["xox"], entropy=2.5),
    token_rule("slack-token", ["xoxe.xoxb-", "xoxe.xoxp-"], "[0-9A-Za-z-]{20,250}",
               "Slack configuration access token", end=WORD_END, keywords=["xoxe."],
               entropy=2.5),
    token_rule("slack-app-token", ["xapp-"], r"\d-[A-Za-z0-9]+-\d+-[A-Za-z0-9]+",
               "Slack app-level token", entropy=2.5),
    pattern_rule("slack-webhook", ["hooks.slack.com/"],
                 r"hooks\.slack\.com/(?:services|workflows|triggers)/(?P<secret>"
                 r"[A-Za-z0-9+/_-]{20,120})", "Slack incoming webhook or workflow URL (the "
                 "path after the host is the credential)", entropy=3.0),
    # --- Discord, Telegram, Teams, Twilio -------------------------------------------------
    pattern_rule("discord-webhook", ["webhooks/"],
                 r"discord(?:app)?\.com/api/(?:v\d+/)?webhooks/\d{15,22}/(?P<secret>"
                 r"[A-Za-z0-9_-]{60,80})", "Discord webhook URL token", entropy=3.5,
                 keywords=["discord"]),
    pattern_rule("telegram-bot-token", [":A"],
                 r"(?P<secret>[0-9](?<![0-9]{2})[0-9]{4,15}:A[A-Za-z0-9_-]{34})"
                 r"(?![\x00A-Za-z0-9_-])",
                 "Telegram bot API token (bot id, colon, 35 characters starting with A)",
                 entropy=3.0),
    pattern_rule("teams-webhook", ["/webhookb2/"],
                 r"\.webhook\.office\.com/webhookb2/(?P<secret>[A-Za-z0-9@/-]{60,200})",
                 "Microsoft Teams incoming webhook URL (the path is the credential)",
                 entropy=3.0, keywords=["webhook.office.com"]),
    pattern_rule("discord-bot-token", [], keywords=["."],
                 anchor=r"\.(?=[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{23,27}(?![\x00A-Za-z0-9_-]))",
                 pattern=r"(?<![\x00A-Za-z0-9_-])(?P<secret>[MNO][A-Za-z0-9_-]{23,27}\.[A-Za-z0-9_-]{6}\."
                 r"[A-Za-z0-9_-]{27,40})(?![\x00A-Za-z0-9_-])",
                 description="Discord bot token (the bot id in base64, a timestamp, an HMAC)",
                 entropy=3.5, check=_snowflake_head),
    token_rule("twilio-api-key", ["SK"], "[0-9a-fA-F]{32}",
               "Twilio API key SID (SK…), the name of a Twilio API key", keywords=["sk"],
               glue=STRICT),
    # --- email and messaging -------------------------------------------------------------
    token_rule("sendgrid-api-key", ["SG."], "[A-Za-z0-9_=.-]{66}", "SendGrid API key",
               end=WORD_END, keywords=["sg."]),
    token_rule("brevo-api-key", ["xkeysib-", "xsmtpsib-"], f"{_HEX}{{64}}-[A-Za-z0-9]{{16}}",
               "Brevo (Sendinblue) API or SMTP key"),
    token_rule("adobe-client-secret", ["p8e-"], "[A-Za-z0-9]{32}", "Adobe client secret"),
    token_rule("mailgun-api-key", ["key-"], f"{_HEX}{{32}}", "Mailgun private API key",
               glue=STRICT),
    pattern_rule("mailchimp-api-key", [], keywords=["-us"],
                 anchor=r"-(?<=\dsu-)(?=[a-f0-9]{32}(?![\x00A-Za-z0-9]))", pattern=
                 r"(?<![\x00A-Za-z0-9])(?P<secret>[a-f0-9]{32}-us\d{1,2})(?![\x00A-Za-z0-9])",
                 description="Mailchimp API key (32 hex, datacenter suffix)", entropy=3.0),
    # --- payments and commerce ---------------------------------------------------------------
    token_rule("stripe-secret-key", ["sk_live_", "sk_test_", "sk_prod_"],
               "[A-Za-z0-9]{10,247}", "Stripe secret key", keywords=["sk_"]),
    token_rule("stripe-restricted-key", ["rk_live_", "rk_test_", "rk_prod_"],
               "[A-Za-z0-9]{10,247}", "Stripe restricted key", keywords=["rk_"]),
    token_rule("stripe-webhook-secret", ["whsec_"], "[A-Za-z0-9+/=]{32,}",
               "Stripe webhook signing secret", end=B64_END),
    token_rule("square-token", ["sq0atp-", "sq0csp-", "sq0idp-"], "[A-Za-z0-9_-]{22,60}",
               "Square access token or OAuth secret (sq0 formats)", end=WORD_END,
               keywords=["sq0"]),
    token_rule("square-token", ["EAAA"], "[A-Za-z0-9_-]{22,60}",
               "Square access token (EAAA format)", end=WORD_END, entropy=3.5, glue=STRICT),
    pattern_rule("braintree-access-token", ["access_token$"],
                 r"(?P<secret>access_token\$(?:production|sandbox)\$[a-z0-9]{16}\$[a-f0-9]{32})"
                 r"(?![\x00A-Za-z0-9])", "PayPal Braintree access token", entropy=3.0),
    token_rule("adyen-api-key", ["AQE"], "[A-Za-z0-9+/=_.-]{80,300}",
               "Adyen API key", end=DOT_END, entropy=4.0, glue=STRICT),
    token_rule("shopify-token", ["shpat_", "shpca_", "shppa_", "shpss_"], "[a-fA-F0-9]{32}",
               "Shopify admin, custom app, private app access token or shared secret"),
    token_rule("plaid-access-token", ["access-sandbox-", "access-development-",
                                      "access-production-"], _UUID,
               "Plaid access token", keywords=["access-"]),
    token_rule("shippo-token", ["shippo_live_", "shippo_test_"], "[a-fA-F0-9]{40}",
               "Shippo API token", keywords=["shippo_"]),
    token_rule("duffel-token", ["duffel_test_", "duffel_live_"], "[A-Za-z0-9_=-]{43}",
               "Duffel API token", end=WORD_END, keywords=["duffel_"]),
    token_rule("easypost-api-key", ["EZAK", "EZTK"], "[A-Za-z0-9]{54}",
               "EasyPost production or test API key"),
    token_rule("flutterwave-secret-key", ["FLWSECK_TEST-", "FLWSECK-"],
               "[A-Za-z0-9]{32}-X", "Flutterwave secret key", keywords=["flwseck"]),
    token_rule("flutterwave-secret-key", ["FLWSECK_TEST", "FLWSECK"], "-?[A-Za-z0-9]{12}",
               "Flutterwave encryption key", keywords=["flwseck"], entropy=2.5),
    # live_/test_/sandbox_ start too many ordinary words (test_parse_args, live_view):
    # these two are found by their shape, a prefix and a body of the exact length
    pattern_rule("gocardless-token", [], keywords=["live_", "sandbox_"],
                 anchor=r"_(?=evil|xobdnas)(?<=[A-Za-z0-9_=-]{40}_)",
                 pattern=r"(?<![\x00A-Za-z0-9_.-])(?P<secret>(?:live|sandbox)_[A-Za-z0-9_=-]{40})"
                 + WORD_END, description="GoCardless access token", entropy=3.5),
    pattern_rule("lob-api-key", [], keywords=["live_", "test_"],
                 anchor=r"_(?=tset|evil)(?<=[0-9a-f]{35}_)",
                 pattern=r"(?<![\x00A-Za-z0-9_.-])(?P<secret>(?:live|test)_[0-9a-f]{35})"
                 r"(?![\x00A-Za-z0-9])", description="Lob secret API key", entropy=3.0),
    pattern_rule("sidekiq-secret", ["contribsys.com"],
                 r"(?P<secret>[a-f0-9]{8}:[a-f0-9]{8})@(?:gems|enterprise)\.contribsys\.com",
                 "Sidekiq Pro/Enterprise gem source credentials", entropy=2.5),
    pattern_rule("sidekiq-secret", ["CONTRIBSYS__COM"],
                 r"BUNDLE_(?:ENTERPRISE|GEMS)__CONTRIBSYS__COM[\"']?\s*[:=]\s*[\"']?"
                 r"(?P<secret>[a-f0-9]{8}:[a-f0-9]{8})(?![a-f0-9])",
                 "Sidekiq Pro/Enterprise credentials in Bundler config", entropy=2.5),
    # --- social, maps, storage, data -------------------------------------------------------
    token_rule("facebook-access-token", ["EAA"], "[A-Za-z0-9]{100,}",
               "Facebook / Meta Graph API access token", entropy=4.0, glue=STRICT),
    # app id, "|" (or %7C), app secret: found by that shape around the separator
    *(pattern_rule("facebook-app-token", [], keywords=[sep],
                   anchor=rf"\{sep}(?=\d{{15,16}}(?!\d))(?<=[A-Za-z0-9_-]{{27}}\{sep})",
                   pattern=r"(?P<secret>[0-9](?<![0-9]{2})[0-9]{14,15}(?:\||%7[Cc]|%)"
                   r"[A-Za-z0-9_-]{27,40})(?![\x00A-Za-z0-9_-])",
                   description="Facebook app access token (app id|app secret)", entropy=3.0)
      for sep in "|%"),
    token_rule("twitter-bearer-token", ["AAAAAAAAAAAAAAAAAAAAAA"], "[A-Za-z0-9%]{80,110}",
               "Twitter / X API bearer token", entropy=3.0),
    token_rule("dropbox-token", ["sl."], r"(?:u\.)?[A-Za-z0-9_=-]{120,}",
               "Dropbox short-lived access token", end=WORD_END, entropy=4.0, glue=STRICT),
    pattern_rule("dropbox-token", ["AAAAAAAAAA"],
                 r"(?<![\x00A-Za-z0-9])(?P<secret>[A-Za-z0-9]{11}AAAAAAAAAA[A-Za-z0-9_=-]{43})"
                 + WORD_END, "Dropbox long-lived access token", entropy=3.5),
    token_rule("mapbox-secret-token", ["sk.eyJ"], r"[A-Za-z0-9_-]{40,}\.[A-Za-z0-9_-]{20,}",
               "Mapbox secret access token", end=WORD_END, keywords=["sk.eyj"]),
    pattern_rule("firebase-cloud-messaging-key", [":APA91b"],
                 r"(?<![\x00A-Za-z0-9])(?P<secret>AAAA[A-Za-z0-9_-]{7}:APA91b[A-Za-z0-9_-]{100,})"
                 + WORD_END, "Firebase Cloud Messaging legacy server key", entropy=4.0),
    pattern_rule("maxmind-license-key", ["_mmk"],
                 r"(?<![\x00A-Za-z0-9_])(?P<secret>[A-Za-z0-9]{6}_[A-Za-z0-9]{29}_mmk)(?![\x00A-Za-z0-9])",
                 "MaxMind license key", entropy=3.5),
)

CONTEXT_RULES: tuple[ContextRule, ...] = (
    context_rule("slack-token", ["slack"], r"[A-Za-z0-9]{24,32}", "Slack signing secret or "
                 "token without a prefix"),
    context_rule("discord-bot-token", ["discord"],
                 r"[MNO][A-Za-z0-9_-]{23,27}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,40}"
                 r"|[a-f0-9]{64}|[A-Za-z0-9_=-]{32}", "Discord bot token or client secret"),
    context_rule("telegram-bot-token", ["telegram", "tg_"], r"[0-9]{5,16}:[A-Za-z0-9_-]{35}",
                 "Telegram bot token"),
    context_rule("twilio-auth-token", ["twilio"], r"[a-f0-9]{32}", "Twilio auth token"),
    context_rule("mailgun-key", ["mailgun"], r"(?:key-)?[a-f0-9]{32}|[a-h0-9]{32}-[a-h0-9]{8}"
                 r"-[a-h0-9]{8}", "Mailgun API or webhook signing key"),
    context_rule("postmark-token", ["postmark"], _UUID, "Postmark server or account token",
                 entropy=None),
    context_rule("messagebird-key", ["messagebird", "message_bird", "message-bird"],
                 r"[A-Za-z0-9]{25}", "MessageBird API key"),
    context_rule("mattermost-token", ["mattermost"], r"[a-z0-9]{26}",
                 "Mattermost access token"),
    context_rule("sendbird-token", ["sendbird"], r"[a-f0-9]{40}", "Sendbird API token"),
    context_rule("plaid-secret", ["plaid"], r"[a-z0-9]{30}", "Plaid secret"),
    context_rule("coinbase-secret", ["coinbase"], r"[A-Za-z0-9_-]{64}",
                 "Coinbase API secret"),
    context_rule("crypto-exchange-secret", ["kraken", "kucoin", "bittrex", "binance"],
                 r"[A-Za-z0-9/=_+-]{64,90}|[a-f0-9]{24}|[a-f0-9]{32}|" + _UUID,
                 "crypto exchange API key or secret (Kraken, KuCoin, Bittrex, Binance)"),
    context_rule("finance-api-key", ["finicity", "finnhub", "freshbooks"],
                 r"[A-Za-z0-9]{20}|[a-f0-9]{32}|[A-Za-z0-9]{64}",
                 "Finicity, Finnhub or FreshBooks API key"),
    context_rule("twitter-secret", ["twitter"], r"[A-Za-z0-9]{25}|[A-Za-z0-9]{45}"
                 r"|[A-Za-z0-9]{50}|[0-9]{15,25}-[A-Za-z0-9]{20,40}",
                 "Twitter / X API key, secret or access token"),
    context_rule("linkedin-secret", ["linkedin", "linked_in", "linked-in"],
                 r"[A-Za-z0-9]{16}", "LinkedIn client secret"),
    context_rule("facebook-secret", ["facebook", "fb_"], r"[a-f0-9]{32}",
                 "Facebook app secret"),
    context_rule("twitch-token", ["twitch"], r"[a-z0-9]{30}", "Twitch API token"),
    context_rule("flickr-token", ["flickr"], r"[a-z0-9]{32}", "Flickr access token"),
    context_rule("etsy-token", ["etsy"], r"[a-z0-9]{24}", "Etsy access token"),
    context_rule("nytimes-token", ["nytimes", "newyorktimes"], r"[A-Za-z0-9=_-]{32}",
                 "New York Times API key"),
    context_rule("rapidapi-key", ["rapidapi"], r"[A-Za-z0-9_-]{50}", "RapidAPI key"),
    context_rule("squarespace-token", ["squarespace"], _UUID, "Squarespace API key",
                 entropy=None),
    context_rule("algolia-api-key", ["algolia"], r"[A-Za-z0-9]{32}", "Algolia admin or "
                 "write API key"),
    context_rule("mapbox-secret-token", ["mapbox"], r"sk\.[A-Za-z0-9._-]{60,}",
                 "Mapbox secret token"),
    context_rule("adafruit-io-key", ["adafruit"], r"aio_[A-Za-z0-9]{28}|[A-Za-z0-9_-]{32}",
                 "Adafruit IO key"),
    context_rule("adobe-client-secret", ["adobe"], r"p8e-[A-Za-z0-9]{32}|[a-f0-9]{32}",
                 "Adobe client secret"),
    context_rule("beamer-api-key", ["beamer"], r"b_[A-Za-z0-9=_-]{44}", "Beamer API key"),
    context_rule("yelp-api-key", ["yelp"], r"[A-Za-z0-9_-]{128}", "Yelp Fusion API key"),
    context_rule("privateai-api-key", ["privateai", "private_ai", "private-ai"],
                 r"[A-Za-z0-9]{32}", "Private AI API key"),
)
