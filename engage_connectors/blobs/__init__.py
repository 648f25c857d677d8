"""Blob storage adapters: a local directory (`LocalBlobStore`, the default) and S3-compatible storage
(`S3BlobStore`, the `s3` extra; imported from `engage_connectors.blobs.s3`, since boto3 is optional)."""

from engage_connectors.blobs.local import LocalBlobStore

__all__ = ["LocalBlobStore"]
