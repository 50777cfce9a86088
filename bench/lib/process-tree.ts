import { readdirSync, readFileSync } from 'node:fs';

function pssBytes(pid: number): number {
  try {
    const m = /^Pss:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'));
    return m ? Number(m[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

function parentOf(pid: number): number | null {
  try {
    // Field 4 of /proc/PID/stat, after the parenthesised command name (which may hold spaces).
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return null;
  }
}

/**
 * The memory of a process and its children (PostgreSQL's postmaster and its backends), as the sum
 * of their proportional set sizes: shared buffers, mapped by every backend, are counted once
 * across them rather than once per backend as their resident sizes would.
 */
export function processTreePssBytes(root: number): number {
  let total = pssBytes(root);
  for (const name of readdirSync('/proc')) {
    const pid = Number(name);
    if (Number.isInteger(pid) && parentOf(pid) === root) total += pssBytes(pid);
  }
  return total;
}
