import { createTask } from 'node-cron';

/**
 * When node-cron next fires `expression` in `timeZone` after now, computed by node-cron itself
 * on a task that is never started (so no timer holds the process). For processes that report on
 * a worker's schedule without running it (`pitwall status`).
 */
export function nextFire(expression: string, timeZone: string): Date | null {
  const task = createTask(expression, () => undefined, { timezone: timeZone });
  try {
    return task.getNextRuns(1)[0] ?? null;
  } finally {
    void task.destroy();
  }
}
