import { createCB } from 'xmlbuilder2';
import type { XMLBuilderCB } from 'xmlbuilder2/lib/interfaces.js';
import type { FeedField, FeedFormat } from '../../aggregates/feed/feed.events.js';
import type { FeedRecord } from '../../read-models/feeds.queries.js';

/** The namespace RSS items carry the fields RSS has no element for in (docs/feeds.md). */
export const RECORD_NS = 'urn:platform:feed-record';

/** Characters XML 1.0 forbids (controls but tab, LF, CR; lone surrogates; U+FFFE, U+FFFF): dropped. */
const FORBIDDEN = /[^\u0009\u000A\u000D\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;
export const xmlSafe = (s: string) => s.replace(FORBIDDEN, '');

/** What the writer knows of the feed besides its records. */
export interface FeedHead {
  title: string;
  description: string;
  homeUrl: string | null;
  feedUrl: string;
  lastModified: number;
  fields: readonly FeedField[];
}

/** A feed written as chunks of text: the head, one chunk per record, the tail. */
export interface FeedWriter {
  contentType: string;
  head(): string;
  item(record: FeedRecord): string;
  tail(): string;
}

/** A record's value of a field: its property value, or uuid / createdAt / updatedAt. */
function valueOf(record: FeedRecord, key: string): unknown {
  if (key === 'uuid') return record.uuid;
  if (key === 'createdAt') return record.created_at;
  if (key === 'updatedAt') return record.updated_at;
  return Object.hasOwn(record.vals, key) ? record.vals[key] : null;
}

/** A value as text: strings as they are, lists joined, other objects as JSON; null is no text. */
function textOf(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value) && value.every((v) => typeof v !== 'object' || v === null)) return value.map((v) => String(v ?? '')).join(', ');
  return JSON.stringify(value);
}

/** A date from a value: epoch milliseconds, or a text Date.parse reads; null when neither. */
function dateOf(value: unknown): Date | null {
  const ms = typeof value === 'number' ? value : typeof value === 'string' ? Date.parse(value) : NaN;
  return Number.isFinite(ms) && Math.abs(ms) < 8.64e15 ? new Date(ms) : null;
}

const rfc822 = (d: Date) => d.toUTCString();

/**
 * XML over xmlbuilder2's callback (streaming) builder: `xml` writes the document's head and tail,
 * `fresh()` a builder of one fragment (an item: a builder kept across a whole feed slows down as
 * it goes, one per item does not). `take` returns what was written since it was last called.
 */
function xmlChunks() {
  const out: string[] = [];
  const data = (chunk: string) => out.push(chunk);
  const xml = createCB({ data, prettyPrint: false });
  const fresh = () => createCB({ data, prettyPrint: false });
  const take = () => {
    const s = out.join('');
    out.length = 0;
    return s;
  };
  const leaf = (parent: XMLBuilderCB, name: string, text: string, attrs?: Record<string, string>) => {
    const e = parent.ele(name, attrs);
    const safe = xmlSafe(text);
    if (safe !== '') e.txt(safe);
    e.up();
  };
  return { xml, fresh, take, leaf };
}

const RSS_ITEM = new Set(['title', 'link', 'description', 'author', 'category', 'comments', 'guid', 'pubDate']);

/** RSS 2.0: one <item> per record; fields named as an RSS item element are that element, the others record:NAME. */
function rssWriter(h: FeedHead): FeedWriter {
  const { xml, fresh, take, leaf } = xmlChunks();
  return {
    contentType: 'application/rss+xml; charset=utf-8',
    head() {
      xml.dec({ version: '1.0', encoding: 'UTF-8' }).ele('rss', { version: '2.0', 'xmlns:record': RECORD_NS }).ele('channel');
      leaf(xml, 'title', h.title);
      leaf(xml, 'link', h.homeUrl ?? h.feedUrl);
      leaf(xml, 'description', h.description || h.title);
      leaf(xml, 'lastBuildDate', rfc822(new Date(h.lastModified)));
      return take();
    },
    item(r) {
      const x = fresh();
      x.ele('item');
      let guid = false;
      let pubDate = false;
      for (const f of h.fields) {
        const value = valueOf(r, f.key);
        if (f.as === 'pubDate') {
          const d = dateOf(value);
          if (d) leaf(x, 'pubDate', rfc822(d));
          pubDate = true;
          continue;
        }
        const text = textOf(value);
        if (text === null) continue;
        if (f.as === 'guid') guid = true;
        leaf(x, RSS_ITEM.has(f.as) ? f.as : `record:${f.as}`, text, f.as === 'guid' ? { isPermaLink: 'false' } : undefined);
      }
      if (!guid) leaf(x, 'guid', r.uuid, { isPermaLink: 'false' });
      if (!pubDate) leaf(x, 'pubDate', rfc822(new Date(r.created_at)));
      x.up().end();
      return take();
    },
    tail() {
      xml.up().up().end();
      return take();
    },
  };
}

/**
 * The Indeed XML feed layout (docs/feeds.md): <source> with <publisher>, <publisherurl>,
 * <lastBuildDate>, then one <job> per record. Fields are written as elements of their output name
 * (Indeed's: title, date, referencenumber, url, company, city, state, country, postalcode,
 * description, salary, jobtype, category, experience, education, ...); referencenumber defaults
 * to the record uuid and date to its creation.
 */
function indeedWriter(h: FeedHead): FeedWriter {
  const { xml, fresh, take, leaf } = xmlChunks();
  return {
    contentType: 'application/xml; charset=utf-8',
    head() {
      xml.dec({ version: '1.0', encoding: 'UTF-8' }).ele('source');
      leaf(xml, 'publisher', h.title);
      leaf(xml, 'publisherurl', h.homeUrl ?? h.feedUrl);
      leaf(xml, 'lastBuildDate', rfc822(new Date(h.lastModified)));
      return take();
    },
    item(r) {
      const x = fresh();
      x.ele('job');
      const named = new Set(h.fields.map((f) => f.as));
      for (const f of h.fields) {
        const value = valueOf(r, f.key);
        const d = f.as === 'date' || f.as === 'expirationdate' ? dateOf(value) : null;
        const text = d ? rfc822(d) : textOf(value);
        if (text !== null) leaf(x, f.as, text);
      }
      if (!named.has('referencenumber')) leaf(x, 'referencenumber', r.uuid);
      if (!named.has('date')) leaf(x, 'date', rfc822(new Date(r.created_at)));
      x.up().end();
      return take();
    },
    tail() {
      xml.up().end();
      return take();
    },
  };
}

const JSON_ITEM = new Set(['url', 'external_url', 'title', 'content_html', 'content_text', 'summary', 'image', 'banner_image', 'date_published', 'date_modified', 'tags', 'language']);

/** JSON Feed 1.1: item fields by their JSON Feed names; every other field under the item's `_record` extension. */
function jsonWriter(h: FeedHead): FeedWriter {
  let first = true;
  return {
    contentType: 'application/feed+json; charset=utf-8',
    head() {
      const head = { version: 'https://jsonfeed.org/version/1.1', title: h.title, ...(h.homeUrl ? { home_page_url: h.homeUrl } : {}), feed_url: h.feedUrl, ...(h.description ? { description: h.description } : {}) };
      return `${JSON.stringify(head).slice(0, -1)},"items":[`;
    },
    item(r) {
      const item: Record<string, unknown> = { id: r.uuid };
      const extra: Record<string, unknown> = {};
      for (const f of h.fields) {
        const value = valueOf(r, f.key);
        if (!JSON_ITEM.has(f.as)) {
          extra[f.as] = value ?? null;
          continue;
        }
        if (f.as === 'date_published' || f.as === 'date_modified') {
          const d = dateOf(value);
          if (d) item[f.as] = d.toISOString();
        } else if (f.as === 'tags') {
          if (value !== null) item.tags = (Array.isArray(value) ? value : [value]).map((v) => textOf(v) ?? '');
        } else {
          const text = textOf(value);
          if (text !== null) item[f.as] = text;
        }
      }
      if (item.content_text === undefined && item.content_html === undefined) item.content_text = typeof item.summary === 'string' ? item.summary : typeof item.title === 'string' ? item.title : '';
      item.date_published ??= new Date(r.created_at).toISOString();
      item.date_modified ??= new Date(r.updated_at).toISOString();
      if (Object.keys(extra).length > 0) item._record = extra;
      const text = JSON.stringify(item);
      const out = first ? text : `,${text}`;
      first = false;
      return out;
    },
    tail: () => ']}',
  };
}

export function feedWriter(format: FeedFormat, head: FeedHead): FeedWriter {
  switch (format) {
    case 'rss':
      return rssWriter(head);
    case 'indeed':
      return indeedWriter(head);
    case 'json':
      return jsonWriter(head);
  }
}
