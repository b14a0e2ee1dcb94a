"""The ledger of a batch run's batches (judging.batching), without a database or a provider:
what a resumed run's calls are matched with."""

from judging.batching import BatchLedger, BatchProgress, SubmittedBatch, fingerprint

REQUEST = {"model": "gpt-4.1-mini", "messages": [{"role": "user", "content": "Is it met?"}]}


def test_a_requests_fingerprint_ignores_its_headers_and_not_its_body():
    with_id = REQUEST | {"extra_headers": {"x-irid": "a1"}}
    assert fingerprint(with_id) == fingerprint(REQUEST | {"extra_headers": {"x-irid": "b2"}})
    assert fingerprint(REQUEST) != fingerprint(REQUEST | {"temperature": 0.2})


def test_each_request_of_a_pending_batch_is_claimed_once_even_when_two_are_alike():
    alike = fingerprint(REQUEST)  # two epochs of one call send the same body
    ledger = BatchLedger(known=[SubmittedBatch("batch-1", ((alike, "r1"), (alike, "r2")), 0.0)])
    first, second = ledger.claim(alike), ledger.claim(alike)
    assert first is not None and second is not None
    assert {first[1], second[1]} == {"r1", "r2"} and first[0].batch_id == "batch-1"
    assert ledger.claim(alike) is None and ledger.claim("another") is None


def test_the_answers_of_an_ended_batch_wait_for_the_calls_that_claim_them():
    ledger = BatchLedger()
    ledger.ended("batch-1", {"r1": "an answer"}, BatchProgress("batch-1", 1, 0))
    assert ledger.is_ended("batch-1")
    assert ledger.stashed("r1") == (True, "an answer") and ledger.stashed("r1") == (False, None)
    news = ledger.news()
    assert news.ended == {"batch-1": BatchProgress("batch-1", 1, 0)}
    assert ledger.news().ended == {}  # told once


def test_the_providers_progress_is_told_only_when_it_was_asked_again():
    ledger = BatchLedger()
    ledger.submitted(SubmittedBatch("batch-1", (("p", "r1"),), 0.0))
    assert [b.batch_id for b in ledger.news().submitted] == ["batch-1"]
    ledger.checked([BatchProgress("batch-1", 0, 0)])
    assert ledger.news().progress == [BatchProgress("batch-1", 0, 0)]
    assert ledger.news().progress == []
    assert not ledger.wait_saved("batch-1", timeout=0)
    ledger.saved(["batch-1"])
    assert ledger.wait_saved("batch-1", timeout=0)
