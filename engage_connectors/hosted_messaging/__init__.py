"""The hosted multi-channel messaging provider (a Unipile-style API): WhatsApp, Telegram,
Instagram and LinkedIn accounts, their logins and checkpoints, chats and messages, and the
callbacks it posts back. See docs/channels.md.

`HostedMessagingClient` talks to the provider; `CallbackAuthenticator` and `parse_callback` read
what it sends us. Both speak the provider's vocabulary (`values`); mapping it onto the domain's
channels is left to the gateway adapter.
"""

from engage_connectors.hosted_messaging.callbacks import (
    CALLBACK_SECRET_HEADER,
    AccountStatusChange,
    Callback,
    CallbackAuthenticator,
    CallbackRefused,
    IgnoredCallback,
    InboundMessage,
    MalformedCallback,
    Receipt,
    ReceiptKind,
    parse_callback,
)
from engage_connectors.hosted_messaging.client import (
    SOURCE_ACCOUNT_STATUS,
    SOURCE_MESSAGING,
    HostedMessagingClient,
)
from engage_connectors.hosted_messaging.errors import (
    CheckpointRejected,
    CredentialsRejected,
    HostedMessagingError,
    NotFound,
    ProviderAuthFailed,
    ProviderProtocolError,
    ProviderRejected,
    ProviderServerError,
    ProviderTimeout,
    ProviderUnavailable,
    ProviderUnreachable,
)
from engage_connectors.hosted_messaging.values import (
    AccountStatus,
    CheckpointRequired,
    Connected,
    FileUpload,
    LoginResult,
    MessagePage,
    Provider,
    ProviderAccount,
    ProviderMessage,
    QrChallenge,
    ReconnectResult,
    SentMessage,
)

__all__ = [
    "CALLBACK_SECRET_HEADER",
    "SOURCE_ACCOUNT_STATUS",
    "SOURCE_MESSAGING",
    "AccountStatus",
    "AccountStatusChange",
    "Callback",
    "CallbackAuthenticator",
    "CallbackRefused",
    "CheckpointRejected",
    "CheckpointRequired",
    "Connected",
    "CredentialsRejected",
    "FileUpload",
    "HostedMessagingClient",
    "HostedMessagingError",
    "IgnoredCallback",
    "InboundMessage",
    "LoginResult",
    "MalformedCallback",
    "MessagePage",
    "NotFound",
    "Provider",
    "ProviderAccount",
    "ProviderAuthFailed",
    "ProviderMessage",
    "ProviderProtocolError",
    "ProviderRejected",
    "ProviderServerError",
    "ProviderTimeout",
    "ProviderUnavailable",
    "ProviderUnreachable",
    "QrChallenge",
    "Receipt",
    "ReceiptKind",
    "ReconnectResult",
    "SentMessage",
    "parse_callback",
]
