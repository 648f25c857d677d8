"""The team: members with roles and passwords, invitations and sign-in."""
