// rta: the version is answered before anything else is loaded, so it costs nothing.
import { writeSync } from "node:fs";
import { version } from "../package.json";

const argv = process.argv.slice(2);
if (argv.length === 1 && (argv[0] === "--version" || argv[0] === "-V")) {
  writeSync(1, `${version}\n`);
} else {
  const { main } = await import("./cli/program.ts");
  process.exitCode = await main(argv);
}
