import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { pageDocumentSchema, pageFieldMax, pageFieldNames } from '../../aggregates/page/page.document.js';
import { cmsPageSchema, createPageBodySchema, templateBodySchema, updatePageBodySchema } from '../../src/webpages/pages.schemas.js';

const maxOf = (s: z.ZodType | undefined) => (s instanceof z.ZodOptional ? (s.unwrap() as z.ZodString).maxLength : undefined);

describe('the page document is declared once', () => {
  it('the DTO answers the domain document as it is', () => {
    expect(cmsPageSchema.shape.document).toBe(pageDocumentSchema);
  });

  it("every body that sends page fields takes the domain's fields with the domain's limits", () => {
    for (const name of pageFieldNames) {
      expect(maxOf(createPageBodySchema.shape[name]), `create ${name}`).toBe(pageFieldMax[name]);
      expect(maxOf(updatePageBodySchema.shape[name]), `update ${name}`).toBe(pageFieldMax[name]);
      if (name !== 'slug') expect(maxOf(templateBodySchema.shape[name]), `template ${name}`).toBe(pageFieldMax[name]);
    }
    expect('slug' in templateBodySchema.shape).toBe(false);
    expect(updatePageBodySchema.safeParse({ title: 'x'.repeat(pageFieldMax.title + 1) }).success).toBe(false);
    expect(updatePageBodySchema.safeParse({ title: 'x'.repeat(pageFieldMax.title) }).success).toBe(true);
  });
});
