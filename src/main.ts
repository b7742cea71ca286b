// rta: the version is answered before anything else is loaded, so it costs nothing.
import { writeSync } from "node:fs";
import { version } from "../package.json";
import { settleJit } from "./core/jit.ts";

/** How long a start lasts at most: a server has answered its client's handshake well within it (its first call ends it sooner). */
const STARTUP_MS = 100;

const argv = process.argv.slice(2);
if (argv.length === 1 && (argv[0] === "--version" || argv[0] === "-V")) {
  writeSync(1, `${version}\n`);
} else {
  // Past STARTUP_MS (or a stdio server's first tools/call) the normal JIT policy holds (core/jit.ts), so what runs
  // for longer is compiled as ever.
  setTimeout(settleJit, STARTUP_MS).unref();
  const { main } = await import("./cli/program.ts");
  process.exitCode = await main(argv);
}
