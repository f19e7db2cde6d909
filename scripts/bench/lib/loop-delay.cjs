// Preloaded into a server a benchmark starts (`node --require …/loop-delay.cjs bin/tel.js serve`):
// how long the event loop was held, as the server itself sees it, so the figure does not count the
// load generator's own pauses. Two measures, since a shared box also takes the CPU away: the
// loop's longest delay (wall clock, monitorEventLoopDelay), and the most CPU the main thread spent
// between two ticks of a 5 ms timer (its own work: a long task shows, being descheduled does not).
// Each SIGUSR2 prints both (ms) on stderr, then starts over.
const { monitorEventLoopDelay } = require('node:perf_hooks');
const histogram = monitorEventLoopDelay({ resolution: 5 });
histogram.enable();
let last = process.threadCpuUsage();
let heldMs = 0;
setInterval(() => {
  const now = process.threadCpuUsage();
  heldMs = Math.max(heldMs, (now.user - last.user + now.system - last.system) / 1000);
  last = now;
}, 5).unref();
process.on('SIGUSR2', () => {
  process.stderr.write(`loop-delay ${(histogram.max / 1e6).toFixed(1)} ${heldMs.toFixed(1)}\n`);
  histogram.reset();
  heldMs = 0;
});
