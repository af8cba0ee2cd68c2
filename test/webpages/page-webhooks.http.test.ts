import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReceiver, waitFor, type Receiver } from '../support/webhook-receiver.js';
import { aPage, call, data, patchUrl, useCmsSite } from './cms-fixtures.js';

const cms = useCmsSite({ env: { REACTORS_ENABLED: 'true', WEBHOOK_ALLOWED_HOSTS: '127.0.0.1', WEBHOOK_POLL_MS: '50', WEBHOOK_RATE_LIMIT_MAX: '1000' } });
let rx: Receiver;
beforeAll(async () => {
  rx = await startReceiver();
});
afterAll(async () => rx.close());

describe('page events for webhooks', () => {
  it('delivers PagePatched and PagePublished to webhooks subscribed to them, traceable by requestId', async () => {
    const secret = `whsec_${Buffer.from('a page webhook secret, long enough').toString('base64')}`;
    for (const topic of ['PagePatched', 'PagePublished']) {
      const res = await call(cms.app, cms.owner, 'POST', '/api/v2/webhooks', { url: `${rx.url}/${topic}`, secret, topic });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
    }
    const { record, page } = await aPage(cms.app, cms.owner, cms.site);
    const patched = await cms.app.inject({ method: 'POST', url: patchUrl(record.uuid), headers: { ...cms.owner.headers, 'x-request-id': `page-hook-${page.uuid}` }, payload: { locale: 'en', expectedRevision: 0, patches: [{ op: 'setSeo', seo: { title: 'hooked' } }] } });
    expect(patched.statusCode, patched.body).toBe(200);
    await data(cms.app, cms.owner, 'PUT', `/api/v2/webpages/${page.uuid}/publish`, {});
    const [delivery] = await waitFor(() => (rx.on('/PagePatched').length > 0 ? rx.on('/PagePatched') : null), 10_000, 'PagePatched delivery');
    expect(delivery!.body).toContain('hooked');
    expect(delivery!.body).toContain(page.uuid);
    await waitFor(() => rx.on('/PagePublished').length > 0, 10_000, 'PagePublished delivery');
    expect(rx.on('/PagePublished')[0]!.body).toContain('PagePublished');
    // The event log finds the patch by its requestId.
    const log = await call(cms.app, cms.owner, 'POST', '/api/v2/events/index', { filters: [{ key: 'requestId', operator: 'equals', value: `page-hook-${page.uuid}` }] });
    expect(log.status, JSON.stringify(log.body)).toBe(200);
    expect(log.body.data.map((e: { type: string }) => e.type)).toEqual(['PagePatched']);
  });
});
