// What the site's training workers share (chapter 8's and chapter 11's). trainingRuns: one run at a time, driven
// by messages:
//   {type: 'start', ...}  runs start(data, runs): the worker's own loop
//   {type: 'pause'}       pauses after the current step and posts a checkpoint; {type: 'resume'}; {type: 'stop'}
// Out: {type: 'checkpoint', iter, bytes, done} when paused and at the end, {type: 'error', message, started}.
// A run that fails after it started (a diverged step leaves the model as it was) posts the checkpoint of its
// last good state before the error, so the reader keeps what it learned.

/**
 * A function that resolves after one turn of the event loop, through a message to ourselves: a setTimeout(0)
 * between steps is clamped to 4 ms once nested (HTML's timer rules), and 1,200 steps lost ~5 s to it. Its caller
 * waits for one turn at a time, so one pending resolver is all there is.
 */
export function eventLoopTurns() {
  const channel = new MessageChannel();
  let turn = null;
  channel.port1.onmessage = () => turn();
  return () => new Promise((resolve) => {
    turn = resolve;
    channel.port2.postMessage(null);
  });
}

export function trainingRuns(start, { onMessage = () => {} } = {}) {
  const nextTurn = eventLoopTurns();
  const runs = {
    trainer: null,
    paused: false,
    stopped: false,
    running: false, // a run's trainer exists and has not finished
    pausedMs: 0, // time spent paused in the current run
    /** The run's trainer from now on (the previous run's freed). */
    begin(trainer) {
      runs.trainer?.dispose();
      Object.assign(runs, { trainer, paused: false, stopped: false, running: true, pausedMs: 0 });
    },
    /** Lets pause and stop messages in, waits out a pause; false once the run is stopped. */
    async next() {
      const t = performance.now();
      do await (runs.paused ? new Promise((resolve) => setTimeout(resolve, 50)) : nextTurn());
      while (runs.paused);
      runs.pausedMs += performance.now() - t;
      return !runs.stopped;
    },
    checkpoint(done) {
      const bytes = runs.trainer.checkpoint();
      postMessage({ type: 'checkpoint', iter: runs.trainer.iter, bytes, done }, [bytes.buffer]);
    },
    /** The run ended (its last steps done, or stopped): its final checkpoint. */
    finish() {
      runs.checkpoint(true);
      runs.running = false;
    },
  };
  onmessage = async ({ data }) => {
    try {
      if (data.type === 'start') await start(data, runs);
      else if (data.type === 'pause' && runs.trainer) {
        runs.paused = true;
        runs.checkpoint(false);
      } else if (data.type === 'resume') runs.paused = false;
      else if (data.type === 'stop') {
        runs.stopped = true;
        runs.paused = false;
      } else onMessage(data); // a worker's own messages (chapter 11's letters)
    } catch (error) {
      const started = data.type === 'start' && runs.running;
      runs.running = false;
      if (started) runs.checkpoint(true);
      postMessage({ type: 'error', message: error.message, started });
    }
  };
  return runs;
}
