import { accessSync, constants, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';

import { chromium, type BrowserContext } from 'playwright-core';

/** Variables naming a browser binary, in the order they are read: ours, then the one Puppeteer and Lighthouse read. */
export const BROWSER_VARIABLES = ['PITWALL_BROWSER', 'CHROME_PATH'] as const;
/** Names a Chromium-based browser has on a PATH: Debian's and Arch's, Ubuntu's and Fedora's, Google's. */
export const BROWSER_COMMANDS = ['chromium', 'chromium-browser', 'google-chrome', 'google-chrome-stable'] as const;

const executable = (path: string) => {
  try {
    accessSync(path, constants.X_OK);
    // A directory is "executable" too.
    return statSync(path).isFile();
  } catch {
    return false;
  }
};

/**
 * The browser the browser tests drive (playwright-core downloads none of its own): the binary a
 * variable names, else the first of the usual commands on PATH. Throws saying what was looked for
 * and how to name one; a variable naming no executable is an error, never passed over.
 */
export function findBrowser(env: NodeJS.ProcessEnv = process.env): string {
  for (const name of BROWSER_VARIABLES) {
    const path = env[name];
    if (!path) continue;
    if (!executable(path)) throw new Error(`${name}=${path} is not an executable browser`);
    return path;
  }
  const dirs = (env.PATH ?? '').split(delimiter).filter(Boolean);
  for (const command of BROWSER_COMMANDS)
    for (const dir of dirs) if (executable(join(dir, command))) return join(dir, command);
  throw new Error(
    `no browser for the browser tests: set ${BROWSER_VARIABLES.join(' or ')} to a Chromium or Chrome binary, or put one of ${BROWSER_COMMANDS.join(', ')} on PATH (Debian: apt-get install -y chromium)`,
  );
}

/** Offline and quiet: the browser talks to nothing but the page under test. */
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export interface Chromium {
  context: BrowserContext;
  close(): Promise<void>;
}

/** Starts the browser findBrowser finds, with a throwaway profile; fails saying how to name one when there is none. */
export async function launchChromium(): Promise<Chromium> {
  const executablePath = findBrowser();
  const profile = mkdtempSync(join(tmpdir(), 'pitwall-chromium-'));
  // A persistent context is how Playwright takes a --user-data-dir of our choosing.
  const context = await chromium.launchPersistentContext(profile, {
    executablePath,
    headless: true,
    args: ARGS,
    viewport: { width: 1280, height: 900 },
  }).catch((err: unknown) => {
    rmSync(profile, { recursive: true, force: true });
    throw err;
  });
  return {
    context,
    close: async () => {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
