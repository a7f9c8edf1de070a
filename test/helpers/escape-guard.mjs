// Preloaded into every test process by scripts/run-tests.mjs. An unhandled rejection or an uncaught
// exception anywhere in the suite fails the run, even one node:test would only report as activity
// after a test ended. A test that provokes a user callback's exception on purpose (the library
// re-throws it on the next tick) takes it with captureUncaught() from test/helpers/user-errors.ts,
// which uses the capture callback, so it never reaches these listeners.
const escaped = [];
const record = (kind) => (error) => {
  escaped.push(error);
  process.stderr.write(`escape guard: ${kind}: ${error?.stack ?? String(error)}\n`);
};
process.on('unhandledRejection', record('unhandled rejection'));
process.on('uncaughtException', record('uncaught exception'));
process.on('exit', () => {
  if (escaped.length === 0) return;
  process.stderr.write(
    `escape guard: ${escaped.length} error(s) escaped during this test file: the run fails\n`,
  );
  process.exitCode = 1;
});
