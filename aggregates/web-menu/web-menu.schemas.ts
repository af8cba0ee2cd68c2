import { z } from 'zod';

/** Where a menu item may point: http(s), mailto, or a path of the site. Never `javascript:` and the like. */
export const MENU_URL = /^(https?:\/\/[^\s<>"]+|mailto:[^\s<>"]+|\/[^\s<>"]*)$/;

const itemFields = {
  label: z.string().min(1).max(200),
  url: z.string().max(2000).regex(MENU_URL, 'an http(s) or mailto URL, or a path starting with /').optional(),
  pageUuid: z.uuid().optional().describe('A page of the company: public menus link it while it is live, and leave it out otherwise'),
};
const leaf = z.strictObject(itemFields);
const middle = z.strictObject({ ...itemFields, children: z.array(leaf).max(100).optional() });

/** A menu item (three levels at most): a link (url), a page (pageUuid), or, with neither, a heading. */
export const menuItemSchema = z.strictObject({ ...itemFields, children: z.array(middle).max(100).optional() }).meta({ id: 'WebMenuItem' });
export type MenuItem = { label: string; url?: string; pageUuid?: string; children?: MenuItem[] };

/** A web menu: a named tree of links of one CMS environment. */
export interface MenuSettings {
  name: string;
  label: string;
  environment: string;
  items: MenuItem[];
}

/** Every item with its path in the request (`body.items.0.children.2`), depth first. */
export function walkItems(items: readonly MenuItem[], path = 'body.items'): { item: MenuItem; path: string }[] {
  return items.flatMap((item, i) => [{ item, path: `${path}.${i}` }, ...walkItems(item.children ?? [], `${path}.${i}.children`)]);
}
