import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import ICAL from 'ical.js';
import { joinCompany, signUpWithCompany, twoTenants, type TestTenant } from '../support/actors.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { call, data, expectErrorBody } from '../schema/schema-fixtures.js';
import { rebuildReadModels } from '../../src/projections/rebuild.js';
import { calendarEntriesProjection, calendarsProjection } from '../../projections/calendars.projection.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ PASSWORD_SCRYPT_LOG_N: '10', REACTORS_ENABLED: 'false' });
});
afterAll(async () => t.close());

const weekly = { title: 'Planning', start: '2026-03-16T09:00', end: '2026-03-16T10:00', timeZone: 'Europe/Paris', recurrence: 'FREQ=WEEKLY;BYDAY=MO;COUNT=6' };

async function aCalendar(who: TestTenant, body: Record<string, unknown> = {}) {
  return data(t.app, who, 'POST', '/api/v2/calendars', { name: 'Team', timeZone: 'Europe/Paris', ...body });
}

describe('calendars', () => {
  it('creates, reads, lists, changes, deletes and restores a calendar', async () => {
    const owner = await signUpWithCompany(t.app);
    const created = await call(t.app, owner, 'POST', '/api/v2/calendars', { name: 'Sales meetings', timeZone: 'America/New_York', color: '#3366ff' });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const cal = created.body.data;
    expect(cal).toMatchObject({ name: 'Sales meetings', timeZone: 'America/New_York', color: '#3366ff', ownerUuid: owner.userUuid, teamUuids: [], revision: 0, deletedAt: null });
    expect(await data(t.app, owner, 'GET', `/api/v2/calendars/${cal.uuid}`)).toEqual(cal);
    expect(await data(t.app, owner, 'PUT', `/api/v2/calendars/${cal.uuid}`, { name: 'Sales' })).toMatchObject({ name: 'Sales', revision: 1 });
    expect((await call(t.app, owner, 'POST', '/api/v2/calendars/index', {})).body).toMatchObject({ total: 1, data: [{ uuid: cal.uuid, name: 'Sales' }] });
    expect((await call(t.app, owner, 'DELETE', `/api/v2/calendars/${cal.uuid}`)).body.data).toBe('deleted');
    expectErrorBody(await call(t.app, owner, 'GET', `/api/v2/calendars/${cal.uuid}`), 404, 'NOT_FOUND');
    const deleted = await call(t.app, owner, 'POST', '/api/v2/calendars/index', { filters: [{ key: 'deleted', operator: 'equals', value: true }] });
    expect(deleted.body.data.map((c: { uuid: string }) => c.uuid)).toEqual([cal.uuid]);
    expect((await call(t.app, owner, 'POST', `/api/v2/calendars/${cal.uuid}/restore`)).body.data).toMatchObject({ uuid: cal.uuid, deletedAt: null });
    expectErrorBody(await call(t.app, owner, 'POST', `/api/v2/calendars/${cal.uuid}/restore`), 409);
  });

  it('refuses bad input with the error body and a suggestion, writing nothing', async () => {
    const owner = await signUpWithCompany(t.app);
    const bad = await call(t.app, owner, 'POST', '/api/v2/calendars', { name: 'x', timeZone: 'Mars/Olympus', teamUuids: ['00000000-0000-4000-8000-000000000001'] });
    expectErrorBody(bad, 400);
    expect(bad.body.errors.map((e: { message: string }) => e.message.split(':')[0]).sort()).toEqual(['body.teamUuids.0', 'body.timeZone']);
    expectErrorBody(await call(t.app, owner, 'POST', '/api/v2/calendars', { name: 'x', color: 'blue' }), 400);
    const cal = await aCalendar(owner);
    const cases: [Record<string, unknown>, string][] = [
      [{ ...weekly, recurrence: 'FREQ=SOMETIMES' }, 'body.recurrence'],
      [{ ...weekly, recurrence: 'FREQ=MINUTELY' }, 'body.recurrence'],
      [{ ...weekly, recurrence: 'FREQ=DAILY\nEXDATE:20260101T000000' }, 'body.recurrence'],
      [{ ...weekly, end: '2026-03-16T08:00' }, 'body.end'],
      [{ ...weekly, start: 'next monday' }, 'body.start'],
      [{ ...weekly, attendees: ['00000000-0000-4000-8000-000000000001'] }, 'body.attendees.0'],
      [{ ...weekly, allDay: true }, 'body.start'],
    ];
    for (const [body, field] of cases) {
      const res = await call(t.app, owner, 'POST', `/api/v2/calendars/${cal.uuid}/events`, body);
      expectErrorBody(res, 400);
      expect(res.body.errors.map((e: { message: string }) => e.message.split(':')[0]), JSON.stringify(body)).toContain(field);
    }
    expect((await call(t.app, owner, 'POST', `/api/v2/calendars/${cal.uuid}/events/index`, {})).body.total).toBe(0);
    expectErrorBody(await call(t.app, owner, 'GET', `/api/v2/calendars/${cal.uuid}/occurrences?from=2026-01-01&to=2028-01-01`), 400, 'INVALID_DATE');
    expectErrorBody(await call(t.app, owner, 'GET', `/api/v2/calendars/${cal.uuid}/occurrences?from=not-a-date-at-all&to=2026-01-01`), 400, 'INVALID_DATE');
  });

  it('expands a weekly series with one moved and one cancelled occurrence across a daylight-saving change', async () => {
    const owner = await signUpWithCompany(t.app);
    const cal = await aCalendar(owner);
    const series = await data(t.app, owner, 'POST', `/api/v2/calendars/${cal.uuid}/events`, { ...weekly, attendees: [owner.userUuid], location: 'Room 1' });
    expect(series).toMatchObject({ start: '2026-03-16T09:00:00', end: '2026-03-16T10:00:00', timeZone: 'Europe/Paris', recurrence: 'FREQ=WEEKLY;BYDAY=MO;COUNT=6', firstStartsAt: '2026-03-16T09:00:00.000+01:00', lastEndsAt: '2026-04-20T10:00:00.000+02:00' });
    const base = `/api/v2/calendars/${cal.uuid}/events/${series.uuid}/occurrences`;
    // Paris leaves winter time on 29 March 2026: the 30 March occurrence is cancelled, the 6 April one moved to Tuesday 10:00.
    expect((await call(t.app, owner, 'DELETE', `${base}/20260330T090000`)).status).toBe(200);
    const moved = await data(t.app, owner, 'PUT', `${base}/20260406T090000`, { start: '2026-04-07T10:00', title: 'Planning (moved)' });
    expect(moved.recurrence).toBe('FREQ=WEEKLY;BYDAY=MO;COUNT=6');
    expect(moved.changedOccurrences).toEqual([
      { occurrenceId: '20260330T090000', cancelled: true },
      { occurrenceId: '20260406T090000', cancelled: false, start: '2026-04-07T10:00:00', title: 'Planning (moved)' },
    ]);
    // Cancelling twice changes nothing; an id that is no occurrence is a 404.
    expect((await data(t.app, owner, 'DELETE', `${base}/20260330T090000`)).revision).toBe(moved.revision);
    expectErrorBody(await call(t.app, owner, 'DELETE', `${base}/20260331T090000`), 404, 'NOT_FOUND');

    const occurrences = await data(t.app, owner, 'GET', `/api/v2/calendars/${cal.uuid}/occurrences?from=2026-03-01&to=2026-05-01`);
    expect(occurrences.map((o: { occurrenceId: string; start: string; end: string; title: string; changed: boolean }) => [o.occurrenceId, o.start, o.end, o.title, o.changed])).toEqual([
      ['20260316T090000', '2026-03-16T09:00:00.000+01:00', '2026-03-16T10:00:00.000+01:00', 'Planning', false],
      ['20260323T090000', '2026-03-23T09:00:00.000+01:00', '2026-03-23T10:00:00.000+01:00', 'Planning', false],
      ['20260406T090000', '2026-04-07T10:00:00.000+02:00', '2026-04-07T11:00:00.000+02:00', 'Planning (moved)', true],
      ['20260413T090000', '2026-04-13T09:00:00.000+02:00', '2026-04-13T10:00:00.000+02:00', 'Planning', false],
      ['20260420T090000', '2026-04-20T09:00:00.000+02:00', '2026-04-20T10:00:00.000+02:00', 'Planning', false],
    ]);
    expect(occurrences[0]).toMatchObject({ eventUuid: series.uuid, location: 'Room 1', attendees: [owner.userUuid], recurring: true, timeZone: 'Europe/Paris' });
    // A window that holds only the moved occurrence's new time finds it.
    const window = await data(t.app, owner, 'GET', `/api/v2/calendars/${cal.uuid}/occurrences?from=2026-04-07&to=2026-04-08`);
    expect(window.map((o: { occurrenceId: string }) => o.occurrenceId)).toEqual(['20260406T090000']);

    // The iCalendar export parses back (ical.js) to the same occurrences.
    const res = await t.app.inject({ method: 'GET', url: `/api/v2/calendars/${cal.uuid}/ical`, headers: owner.headers });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/calendar/);
    const parsed = new ICAL.Component(ICAL.parse(res.body));
    for (const tz of parsed.getAllSubcomponents('vtimezone')) ICAL.TimezoneService.register(tz);
    const vevents = parsed.getAllSubcomponents('vevent');
    const master = new ICAL.Event(vevents.find((v) => !v.hasProperty('recurrence-id'))!);
    for (const v of vevents) if (v.hasProperty('recurrence-id')) master.relateException(v);
    expect(master.attendees.map((a) => String(a.getFirstValue()).toLowerCase())).toEqual([`mailto:${owner.email}`]);
    const fromICal: [string, string, string][] = [];
    const it = master.iterator();
    for (let next = it.next(); next; next = it.next()) {
      const d = master.getOccurrenceDetails(next);
      fromICal.push([d.startDate.toJSDate().toISOString(), d.endDate.toJSDate().toISOString(), d.item.summary]);
    }
    expect(fromICal).toEqual(occurrences.map((o: { start: string; end: string; title: string }) => [new Date(o.start).toISOString(), new Date(o.end).toISOString(), o.title]));

    // Putting the moved occurrence back: the series as it was, less the cancelled one.
    await data(t.app, owner, 'POST', `${base}/20260406T090000/restore`);
    const after = await data(t.app, owner, 'GET', `/api/v2/calendars/${cal.uuid}/occurrences?from=2026-03-01&to=2026-05-01`);
    expect(after.map((o: { occurrenceId: string; start: string }) => o.start)).toContain('2026-04-06T09:00:00.000+02:00');
    expect(after).toHaveLength(5);
  });

  it('changing the series keeps its still-valid occurrence changes and drops the others', async () => {
    const owner = await signUpWithCompany(t.app);
    const cal = await aCalendar(owner);
    const series = await data(t.app, owner, 'POST', `/api/v2/calendars/${cal.uuid}/events`, weekly);
    const base = `/api/v2/calendars/${cal.uuid}/events/${series.uuid}`;
    await data(t.app, owner, 'DELETE', `${base}/occurrences/20260323T090000`);
    await data(t.app, owner, 'DELETE', `${base}/occurrences/20260420T090000`);
    // Four weeks instead of six: 20 April is no occurrence any more.
    const changed = await data(t.app, owner, 'PUT', base, { recurrence: 'FREQ=WEEKLY;BYDAY=MO;COUNT=4', title: 'Planning v2' });
    expect(changed.changedOccurrences).toEqual([{ occurrenceId: '20260323T090000', cancelled: true }]);
    const occurrences = await data(t.app, owner, 'GET', `/api/v2/calendars/${cal.uuid}/occurrences?from=2026-03-01&to=2026-05-01`);
    expect(occurrences.map((o: { occurrenceId: string; title: string }) => `${o.occurrenceId} ${o.title}`)).toEqual(['20260316T090000 Planning v2', '20260330T090000 Planning v2', '20260406T090000 Planning v2']);
  });

  it('an unending daily series and an all-day event expand in their window', async () => {
    const owner = await signUpWithCompany(t.app);
    const cal = await aCalendar(owner, { timeZone: 'America/New_York' });
    const daily = await data(t.app, owner, 'POST', `/api/v2/calendars/${cal.uuid}/events`, { title: 'Stand-up', start: '2026-01-05T09:30', end: '2026-01-05T09:45', recurrence: 'FREQ=DAILY;BYDAY=MO,TU,WE,TH,FR' });
    expect(daily).toMatchObject({ timeZone: 'America/New_York', lastEndsAt: null });
    await data(t.app, owner, 'POST', `/api/v2/calendars/${cal.uuid}/events`, { title: 'Holiday', start: '2026-03-09', end: '2026-03-10', allDay: true });
    // New York changes on 8 March 2026: the stand-up stays at 09:30 local.
    const week = await data(t.app, owner, 'GET', `/api/v2/calendars/${cal.uuid}/occurrences?from=2026-03-06T00:00:00-05:00&to=2026-03-11T00:00:00-04:00`);
    expect(week.map((o: { title: string; start: string }) => `${o.title} ${o.start}`)).toEqual([
      'Stand-up 2026-03-06T09:30:00.000-05:00',
      'Holiday 2026-03-09',
      'Stand-up 2026-03-09T09:30:00.000-04:00',
      'Stand-up 2026-03-10T09:30:00.000-04:00',
    ]);
    const far = await data(t.app, owner, 'GET', `/api/v2/calendars/${cal.uuid}/occurrences?from=2030-01-07&to=2030-01-08`);
    expect(far.map((o: { start: string }) => o.start)).toEqual(['2030-01-07T09:30:00.000-05:00']);
  });
});

describe('who may see and change a calendar', () => {
  it('the owner and admins change it, its teams read it, other members and companies do not see it', async () => {
    const [admin, stranger] = await twoTenants(t.app);
    const owner = await joinCompany(t.app, admin, { role: 'USER' });
    const reader = await joinCompany(t.app, admin, { role: 'USER' });
    const outsider = await joinCompany(t.app, admin, { role: 'USER' });
    const team = await data(t.app, admin, 'POST', '/api/v2/teams', { name: 'Readers' });
    await data(t.app, admin, 'PUT', `/api/v2/teams/${team.uuid}/users/${reader.userUuid}`);
    const cal = await aCalendar(owner, { teamUuids: [team.uuid] });
    const entry = await data(t.app, owner, 'POST', `/api/v2/calendars/${cal.uuid}/events`, weekly);
    const c = `/api/v2/calendars/${cal.uuid}`;
    const e = `${c}/events/${entry.uuid}`;
    const reads: [string, string, unknown?][] = [
      ['GET', c], ['POST', '/api/v2/calendars/index', {}], ['POST', `${c}/events/index`, {}], ['GET', e], ['GET', `${c}/occurrences?from=2026-03-01&to=2026-04-01`], ['GET', `${c}/ical`],
    ];
    const writes: [string, string, unknown?][] = [
      ['PUT', c, { name: 'Mine now' }], ['POST', `${c}/events`, weekly], ['PUT', e, { title: 'x' }], ['PUT', `${e}/occurrences/20260316T090000`, { title: 'x' }],
      ['DELETE', `${e}/occurrences/20260316T090000`], ['POST', `${e}/occurrences/20260316T090000/restore`], ['DELETE', e], ['POST', `${e}/restore`], ['DELETE', c], ['POST', `${c}/restore`],
    ];
    const send = async (who: TestTenant | null, [method, url, body]: [string, string, unknown?]) => {
      const res = await t.app.inject({ method: method as 'GET', url, headers: who?.headers ?? {}, payload: body as Record<string, unknown> | undefined });
      return { status: res.statusCode, body: (String(res.headers['content-type']).startsWith('application/json') ? res.json() : { text: res.body }) as Record<string, any> };
    };
    for (const r of [...reads, ...writes]) expectErrorBody(await send(null, r), 401);
    for (const r of reads) expect((await send(reader, r)).status, `${r[0]} ${r[1]}`).toBe(200);
    expect((await send(reader, reads[1]!)).body.total).toBe(1);
    for (const w of writes) expectErrorBody(await send(reader, w), 403);
    for (const r of [...reads.filter((x) => x[1] !== '/api/v2/calendars/index'), ...writes]) {
      expectErrorBody(await send(outsider, r), 404, 'NOT_FOUND');
      expectErrorBody(await send(stranger, r), 404, 'NOT_FOUND');
    }
    expect((await send(outsider, reads[1]!)).body.total).toBe(0);
    expect((await send(stranger, reads[1]!)).body.total).toBe(0);
    // The company's admin sees and changes it.
    const renamed = await send(admin, ['PUT', c, { name: 'Renamed by admin' }]);
    expect(renamed.body.data?.name, JSON.stringify(renamed.body)).toBe('Renamed by admin');
    expect((await send(owner, ['GET', c])).body.data).toMatchObject({ name: 'Renamed by admin', updatedBy: { uuid: admin.userUuid } });
    // Nothing the reader, the outsider or the stranger tried was written.
    expect((await send(owner, ['GET', e])).body.data).toMatchObject({ title: 'Planning', revision: 0, changedOccurrences: [] });
  });
});

describe('rebuild of rm_calendars and rm_calendar_entries', () => {
  it('replaying the log gives the same rows', async () => {
    const owner = await signUpWithCompany(t.app);
    const cal = await aCalendar(owner);
    const entry = await data(t.app, owner, 'POST', `/api/v2/calendars/${cal.uuid}/events`, weekly);
    await data(t.app, owner, 'PUT', `/api/v2/calendars/${cal.uuid}/events/${entry.uuid}/occurrences/20260323T090000`, { start: '2026-03-24T08:00' });
    await data(t.app, owner, 'DELETE', `/api/v2/calendars/${cal.uuid}/events/${entry.uuid}/occurrences/20260413T090000`);
    await data(t.app, owner, 'PUT', `/api/v2/calendars/${cal.uuid}/events/${entry.uuid}`, { location: 'Room 2' });
    const second = await data(t.app, owner, 'POST', `/api/v2/calendars/${cal.uuid}/events`, { title: 'Once', start: '2026-05-01T12:00' });
    await data(t.app, owner, 'DELETE', `/api/v2/calendars/${cal.uuid}/events/${second.uuid}`);
    await data(t.app, owner, 'PUT', `/api/v2/calendars/${cal.uuid}`, { color: '#112233' });
    const rows = async () => ({
      calendars: await t.platform.db.query('select * from rm_calendars order by tenant, calendar_uuid'),
      entries: await t.platform.db.query('select * from rm_calendar_entries order by tenant, entry_uuid'),
    });
    const live = await rows();
    expect(live.entries.length).toBeGreaterThanOrEqual(2);
    await rebuildReadModels(t.platform.db, t.platform.store, [calendarsProjection, calendarEntriesProjection]);
    expect(await rows()).toEqual(live);
  });
});
