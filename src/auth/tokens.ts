import { randomBytes } from 'node:crypto';
import { sha256 } from './sha256.js';

/** An opaque bearer or one-time token: 256 random bits, URL-safe. */
export const newToken = () => randomBytes(32).toString('base64url');

/** Tokens are stored only as this hash; high-entropy tokens need no slow hash. */
export const hashToken = (token: string) => sha256(token);
