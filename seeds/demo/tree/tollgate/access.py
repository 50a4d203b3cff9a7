"""Which role may do what. Deny by default: an action is allowed only when it is listed for the role."""

# Only admins may move money out (refunds) or take data out (exports).
ADMIN_ONLY = frozenset({"refund", "export"})

ROLE_PERMISSIONS = {
    "admin": frozenset({"read_usage", "read_invoices", "refund", "export"}),
    "member": frozenset({"read_usage", "read_invoices"}),
    "viewer": frozenset({"read_usage"}),
}


def is_allowed(role, action):
    """True only when ``action`` is listed for ``role``; unknown roles and unknown actions are refused."""
    if action in ADMIN_ONLY and role != "admin":
        return False
    return action in ROLE_PERMISSIONS.get(role, frozenset())
