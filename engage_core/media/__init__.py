"""The media library: a workspace's images and videos, stored through the `BlobStore` port."""
