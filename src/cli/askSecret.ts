/**
 * A secret typed at the terminal (kv.set's value with no pipe), with the
 * terminal's echo off while it is typed, so it is never shown on the screen
 * nor left in its scrollback.
 */
import { spawnSync } from "node:child_process";
import type { Io } from "./io.ts";

/** Asks for `what` on stderr and reads one line with echo off; "" when nothing is typed or the terminal is gone. */
export function askSecret(io: Io, what: string): string {
  // echo off before the prompt: what is typed (pasted) as soon as the prompt shows is not echoed
  const echoOff = stty("-echo");
  io.err(`${what} (not shown as you type): `);
  try {
    return io.readLine();
  } finally {
    if (echoOff) stty("echo");
    io.err("\n");
  }
}

function stty(setting: string): boolean {
  try {
    return spawnSync("stty", [setting], { stdio: ["inherit", "ignore", "ignore"] }).status === 0;
  } catch {
    return false;
  }
}
