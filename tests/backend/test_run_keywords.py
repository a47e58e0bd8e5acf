"""Session.run's feeds as TF1 spells them: ``feed_dict=``, and clear errors for feeds that are not a dict."""

from __future__ import annotations

import sys

import numpy as np
import pytest

import stablegraph as sg


def _here(offset: int = 1) -> str:
    """``test_run_keywords.py:<line>`` of the caller's line plus ``offset``."""
    return f"test_run_keywords.py:{sys._getframe(1).f_lineno + offset}"


@pytest.fixture(scope="module")
def model():
    g = sg.Graph()
    with g:
        x = sg.placeholder((3,), sg.float32, name="x")
        s = sg.placeholder((), sg.float32, name="s")
        y = x * s + 1.0
    with sg.Session(g) as sess:
        yield sess, x, s, y


def test_feed_dict_keyword_positional_and_feeds_agree_with_numpy(model):
    sess, x, s, y = model
    a = np.array([1.0, -2.0, 0.5], np.float32)
    want = a * 3 + 1
    np.testing.assert_array_equal(sess.run(y, feed_dict={x: a, s: 3.0}), want)
    np.testing.assert_array_equal(sess.run(y, {x: a, s: 3.0}), want)
    np.testing.assert_array_equal(sess.run(y, feeds={x: a, s: 3.0}), want)
    np.testing.assert_array_equal(sess.run(fetches=y, feed_dict={"x": a, "s": 3.0}), want)
    # repeats of each spelling take the same program and give the same numbers
    for _ in range(2):
        np.testing.assert_array_equal(sess.run([y], feed_dict={x: a, s: 3.0})[0], want)
        np.testing.assert_array_equal(sess.run(y, feed_dict={x: -a, s: 2.0}), -a * 2 + 1)


def test_feeds_and_feed_dict_together_is_a_feed_error(model):
    sess, x, s, y = model
    a = np.ones(3, np.float32)
    with pytest.raises(sg.FeedError) as info:
        sess.run(y, {x: a, s: 1.0}, feed_dict={x: a, s: 1.0})
    where = _here(-1)
    msg = str(info.value)
    assert msg.startswith(where) and "feed_dict" in msg and "both" in msg, msg


@pytest.mark.parametrize(
    "feeds, says",
    [
        (np.ones(3, np.float32), "got a numpy array"),
        ("pairs", "list of 2 (tensor, value) pairs"),
        (7.0, "got float"),
        ({1, 2}, "got set"),
    ],
)
def test_a_feed_that_is_not_a_dict_is_a_feed_error(model, feeds, says):
    sess, x, s, y = model
    if isinstance(feeds, str):
        feeds = [(x, np.ones(3, np.float32)), (s, 1.0)]
    with pytest.raises(sg.FeedError) as info:
        sess.run(y, feeds)
    where = _here(-1)
    msg = str(info.value)
    assert msg.startswith(where) and "a dict" in msg and says in msg, msg
    with pytest.raises(sg.FeedError, match="a dict"):
        sess.run(y, feed_dict=feeds)


def test_a_mapping_that_is_not_a_dict_still_feeds(model):
    from collections import OrderedDict
    from types import MappingProxyType

    sess, x, s, y = model
    a = np.array([1.0, 2.0, 3.0], np.float32)
    np.testing.assert_array_equal(sess.run(y, OrderedDict([(x, a), (s, 2.0)])), a * 2 + 1)
    np.testing.assert_array_equal(sess.run(y, feed_dict=MappingProxyType({x: a, s: 0.5})), a * 0.5 + 1)
