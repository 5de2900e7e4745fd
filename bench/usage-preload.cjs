// Loaded with `node --require` into a command the bench runs in a child process (bench/whole-command.ts): on exit it
// writes the process's own CPU time and peak RSS to stderr, as one line the bench reads.
const { writeSync } = require('node:fs');

process.on('exit', () => {
  const u = process.resourceUsage();
  writeSync(
    2,
    `\nkarpless-usage ${JSON.stringify({ cpuMs: (u.userCPUTime + u.systemCPUTime) / 1000, maxRssKiB: u.maxRSS })}\n`,
  );
});
