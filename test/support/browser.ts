import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { root } from './server-process.js';

/** Debian's Chromium (`.ci/run` installs it), or the one CHROMIUM_PATH names. */
export function chromiumPath(): string {
  const candidates = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'].filter((p): p is string => Boolean(p));
  const found = candidates.find((p) => existsSync(p));
  if (!found) throw new Error(`no Chromium at ${candidates.join(', ')}: apt-get install -y chromium (or set CHROMIUM_PATH)`);
  return found;
}

/** Headless Chromium; --no-sandbox because CI runs as root. */
export async function launchBrowser(): Promise<Browser> {
  return puppeteer.launch({
    executablePath: chromiumPath(),
    headless: true,
    args: ['--no-sandbox', '--disable-dev-shm-usage', '--disable-gpu', '--no-first-run', '--no-default-browser-check'],
  });
}

/** Where failing browser tests leave their screenshots (gitignored). */
export const screenshotDir = join(root, 'test-output', 'screenshots');

export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(screenshotDir, { recursive: true });
  const file = join(screenshotDir, `${name.replace(/[^\w.-]+/g, '_').slice(0, 120)}-${Date.now()}.png`);
  await page.screenshot({ path: file as `${string}.png`, fullPage: true });
  return file;
}
