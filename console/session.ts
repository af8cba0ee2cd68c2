// The console's one client and its session: the token and the selected company live in
// sessionStorage (this tab only, gone when it closes), never in a cookie.
import { createPlatformClient, type PlatformClient } from '../client/index.js';

const TOKEN = 'platform.console.token';
const COMPANY = 'platform.console.company';

export interface Session {
  token: string | null;
  email: string | null;
  companyUuid: string | null;
  companyName: string | null;
}

const listeners = new Set<() => void>();
let current: Session = {
  token: sessionStorage.getItem(TOKEN),
  email: sessionStorage.getItem(`${TOKEN}.email`),
  companyUuid: sessionStorage.getItem(COMPANY),
  companyName: sessionStorage.getItem(`${COMPANY}.name`),
};

/** The typed client (docs/client.md) on the console's own origin. */
export const api: PlatformClient = createPlatformClient({ baseUrl: location.origin, token: current.token });

export function session(): Session {
  return current;
}

export function setSession(next: Partial<Session>) {
  current = { ...current, ...next };
  api.setToken(current.token);
  const keep = (key: string, value: string | null) => (value === null ? sessionStorage.removeItem(key) : sessionStorage.setItem(key, value));
  keep(TOKEN, current.token);
  keep(`${TOKEN}.email`, current.email);
  keep(COMPANY, current.companyUuid);
  keep(`${COMPANY}.name`, current.companyName);
  for (const l of listeners) l();
}

export function onSession(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function signOut() {
  const token = current.token;
  setSession({ token: null, email: null, companyUuid: null, companyName: null });
  if (token) void createPlatformClient({ baseUrl: location.origin, token }).post('/api/v2/auth/logout').catch(() => {});
}
