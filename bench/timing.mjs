// How the benches time a call: interleaved rounds on idle cores, medians (bench/run.mjs, bench/against_build.mjs).

/** Calls per measurement so that one takes ~20 ms. */
export async function calibrate(fn) {
  await fn();
  let reps = 1;
  for (;;) {
    const t0 = performance.now();
    for (let i = 0; i < reps; i++) await fn();
    if (performance.now() - t0 > 20 || reps > 1 << 14) return reps;
    reps *= 2;
  }
}

/**
 * Waits until no thread of this process is working: onnxruntime-web's workers spin for some 30 ms after a run
 * (this process burned 20-50 ms of CPU while it slept right after one), and on a machine with as many cores as
 * threads they would take a core from whichever runtime is timed next. Every runtime starts on idle cores.
 */
export async function settle() {
  for (let tries = 0; tries < 50; tries++) {
    const before = process.cpuUsage();
    await new Promise((resolve) => setTimeout(resolve, 10));
    const used = process.cpuUsage(before);
    if (used.user + used.system < 1000) return;  // under 1 ms of CPU in 10 ms: idle
  }
}

/**
 * Interleaved rounds over the runtimes of a case (the order rotates each round): median ms per call. A runtime is
 * a function, timed here over enough calls to take ~20 ms, or `{ timed }`: a function that times itself and
 * resolves to its ms per call (another process, as the native build, which calibrates its own calls).
 */
export async function measure(impls, rounds) {
  const names = Object.keys(impls);
  const reps = {};
  for (const name of names) reps[name] = impls[name].timed ? 1 : await calibrate(impls[name]);
  const times = Object.fromEntries(names.map((n) => [n, []]));
  for (let round = 0; round < rounds; round++) {
    for (let i = 0; i < names.length; i++) {
      const name = names[(i + round) % names.length];
      await settle();
      if (impls[name].timed) {
        times[name].push(await impls[name].timed());
        continue;
      }
      const t0 = performance.now();
      for (let r = 0; r < reps[name]; r++) await impls[name]();
      times[name].push((performance.now() - t0) / reps[name]);
    }
  }
  const median = (xs) => xs.sort((a, b) => a - b)[xs.length >> 1];
  return Object.fromEntries(names.map((n) => [n, median(times[n])]));
}
