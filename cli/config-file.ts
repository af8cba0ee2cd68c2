import { mkdirSync, readFileSync, writeFileSync, chmodSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';

/** What `platform login` and `platform companies select` keep between runs. */
export interface CliConfig {
  url?: string;
  token?: string;
  company?: string;
  email?: string;
}

/**
 * The config file: PLATFORM_CONFIG, else `$XDG_CONFIG_HOME/platform/config.json`, else
 * `~/.config/platform/config.json` (`%APPDATA%\platform\config.json` on Windows).
 */
export function configPath(env: NodeJS.ProcessEnv = process.env): string {
  if (env.PLATFORM_CONFIG) return env.PLATFORM_CONFIG;
  const base = env.XDG_CONFIG_HOME || (process.platform === 'win32' && env.APPDATA) || join(homedir(), '.config');
  return join(base, 'platform', 'config.json');
}

export function readConfigFile(path = configPath()): CliConfig {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as CliConfig;
  } catch {
    return {};
  }
}

/** Writes the file readable by its owner only: it holds a bearer token. */
export function writeConfigFile(config: CliConfig, path = configPath()) {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  writeFileSync(path, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600 });
  chmodSync(path, 0o600);
}

/** The file's values, each overridden by its environment variable (PLATFORM_URL, PLATFORM_TOKEN, PLATFORM_COMPANY). */
export function effectiveConfig(env: NodeJS.ProcessEnv = process.env): CliConfig {
  const file = readConfigFile(configPath(env));
  return {
    ...file,
    url: env.PLATFORM_URL || file.url || 'http://127.0.0.1:3000',
    token: env.PLATFORM_TOKEN || file.token,
    company: env.PLATFORM_COMPANY || file.company,
  };
}
