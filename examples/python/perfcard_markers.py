"""Steps and data waits for `perfcard capture`, from Python, with no build step.

    from perfcard_markers import step, timed_batches

    for batch in timed_batches(loader):     # each wait for the next batch is recorded
        with step():                         # one training step
            loss = model(batch).sum(); loss.backward(); opt.step()

Run the script under `perfcard capture -o out -- python train.py`. Outside a
capture (PERFCARD_LIB unset) both are no-ops that cost a function call.
PyTorch programs whose trace already has ProfilerStep#N ranges and DataLoader
annotations (torch.profiler) do not need this."""
import contextlib
import ctypes
import os
import time

_lib = None
if os.environ.get("PERFCARD_LIB"):
    _lib = ctypes.CDLL(os.environ["PERFCARD_LIB"])
    _lib.perfcard_data_wait.argtypes = [ctypes.c_double]
    _lib.perfcard_queue_sample.argtypes = [ctypes.c_char_p, ctypes.c_long, ctypes.c_long]


@contextlib.contextmanager
def step():
    """One training step: perfcard_step_begin on entry, perfcard_step_end on exit."""
    if _lib:
        _lib.perfcard_step_begin()
    try:
        yield
    finally:
        if _lib:
            _lib.perfcard_step_end()


def data_wait(seconds):
    """Record that the current step waited `seconds` for its data, ending now."""
    if _lib:
        _lib.perfcard_data_wait(float(seconds))


def timed_batches(iterable):
    """Yields from `iterable`, recording each wait for the next item as a data wait."""
    it = iter(iterable)
    while True:
        t0 = time.perf_counter()
        try:
            item = next(it)
        except StopIteration:
            return
        data_wait(time.perf_counter() - t0)
        yield item


def queue_sample(name, size, capacity=0):
    """A sample of a queue's fill level (the report's data-queue section)."""
    if _lib:
        _lib.perfcard_queue_sample(name.encode(), int(size), int(capacity))
