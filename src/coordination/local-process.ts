import { hostname } from 'node:os';

/**
 * Whether the process `pid` on `host` is known to be gone: `host` is this machine and no process
 * has that pid here. A run whose process is gone is dead whatever its heartbeat says, so a command
 * run again after a kill -9 on the same machine need not wait for the heartbeat to go stale.
 * Processes of one machine share its host name and its pids; containers get host names of their
 * own (Docker's default), so two containers never read each other's pids as their own. A pid
 * reused since reads as alive: then the heartbeat decides, as for any other machine's run.
 */
export function goneHere(host: string | null, pid: number | null): boolean {
  if (host !== hostname() || pid === null || pid === process.pid || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return false;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ESRCH';
  }
}
