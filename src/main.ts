// rta: the version is answered before anything else is loaded, so it costs nothing.
import { writeSync } from "node:fs";
import { version } from "../package.json";

/** How long a start lasts: a server has answered its client's handshake well within it. */
const STARTUP_MS = 100;

const argv = process.argv.slice(2);
if (argv.length === 1 && (argv[0] === "--version" || argv[0] === "-V")) {
  writeSync(1, `${version}\n`);
} else {
  // The binary starts with JavaScriptCore's tier-up thresholds scaled up (scripts/build.ts): code that runs only
  // while a command line is built or a server starts stays in the interpreter instead of keeping a second core
  // busy compiling it. Past STARTUP_MS the normal policy holds, so what runs for longer is compiled as ever.
  setTimeout(() => Bun.unsafe.setJITPolicy(1), STARTUP_MS).unref();
  const { main } = await import("./cli/program.ts");
  process.exitCode = await main(argv);
}
