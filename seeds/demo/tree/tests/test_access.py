from tollgate.access import is_allowed


def test_viewer_cannot_refund():
    assert not is_allowed("viewer", "refund")


def test_unknown_role_is_denied():
    assert not is_allowed("support", "refund")
    assert not is_allowed("support", "read_usage")


def test_only_admin_may_refund_or_export():
    assert is_allowed("admin", "refund")
    assert is_allowed("admin", "export")
    assert not is_allowed("member", "refund")
    assert not is_allowed("member", "export")
