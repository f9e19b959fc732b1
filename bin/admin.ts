import { runCli } from '../functions/admin/cli';

// `npm run admin -- <command>`: operator CLI (see functions/admin/cli.ts).
process.exitCode = await runCli(
  process.argv.slice(2),
  {
    out: (text) => process.stdout.write(`${text}\n`),
    err: (text) => process.stderr.write(`${text}\n`),
  },
  process.env.DATA_DIR ?? '.data',
);
