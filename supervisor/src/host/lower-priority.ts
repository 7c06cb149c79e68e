import { readdirSync } from "node:fs";
import { setPriority } from "node:os";

/**
 * Gives this whole process a lower CPU priority (a higher nice value). Linux keeps a nice value per thread, and
 * Node's own threads (V8's, libuv's first ones) exist before any code runs, so each thread of /proc/self/task is
 * reniced; threads started later take the value of the thread that starts them, and child processes that of
 * this one. Without /proc, the main thread alone. Not allowed (an unprivileged user may lower, never raise it):
 * nothing changes.
 */
export function lowerOwnPriority(niceness: number): void {
  let tasks: string[];
  try {
    tasks = readdirSync("/proc/self/task");
  } catch {
    tasks = ["0"];
  }
  for (const tid of tasks)
    try {
      setPriority(Number(tid), niceness);
    } catch {
      // Gone meanwhile, or not allowed.
    }
}
