# SPDX-License-Identifier: LGPL-2.1-or-later
"""Fixtures: one context with the host devices (host-w64 and host-w32, or
$HR_PYTEST_HOST), run against the library the environment gives
(t/python/pytest.sh: the build tree's)."""

import os

import pytest

import hanzo_rocm as hr

HOSTS = os.environ.get("HR_PYTEST_HOST", "host-w64 host-w32")


@pytest.fixture(scope="session")
def ctx():
    c = hr.Context(host=HOSTS)
    yield c
    c.close()


def _host_devices(c):
    return [d for d in c.devices if d.platform == hr.PLATFORM_HOST]


def pytest_generate_tests(metafunc):
    if "dev" in metafunc.fixturenames:
        metafunc.parametrize("dev", HOSTS.split(), indirect=True)


@pytest.fixture
def dev(ctx, request):
    for d in _host_devices(ctx):
        if d.target == request.param:
            return d
    pytest.fail("no %s device in %r" % (request.param, ctx.devices))
