import { readdirSync, readFileSync } from 'node:fs';

/** Field 4 of /proc/PID/stat, after the parenthesised command name (which may hold spaces). */
export function parentOf(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return null;
  }
}

function commandLine(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
  } catch {
    return '';
  }
}

/**
 * The warehouse's PostgreSQL processes still running: any postmaster seen during the soak (they
 * run detached, so no process tree of ours holds them), its children, and any process whose
 * command line names the data directory.
 */
export function postgresProcesses(dataDir: string, postmasters: ReadonlySet<number>): number[] {
  const found: number[] = [];
  for (const name of readdirSync('/proc')) {
    const pid = Number(name);
    if (!Number.isInteger(pid) || pid === process.pid) continue;
    const cmd = commandLine(pid);
    if (cmd === '') continue;
    const parent = parentOf(pid);
    if (postmasters.has(pid) || (parent !== null && postmasters.has(parent)) || (cmd.includes(dataDir) && /postgres/.test(cmd))) found.push(pid);
  }
  return found.sort((a, b) => a - b);
}
