import { z } from 'zod';

const text = z.string().max(2000);
const script = z.string().max(100_000);

/** The editable public settings of spec 2.10 (uuid, name and updatedAt come from the company). */
export const companySettingsSchema = z.object({
  website: text.optional(),
  logo: text.optional(),
  favicon: text.optional(),
  customDomain: text.optional(),
  cookiePolicy: text.optional(),
  privacyPolicy: text.optional(),
  termsAndConditions: text.optional(),
  accentColor: text.optional(),
  primaryColor: text.optional(),
  secondaryColor: text.optional(),
  companyColor: text.optional(),
  fontColor: text.optional(),
  twitterUrl: text.optional(),
  facebookUrl: text.optional(),
  youtubeUrl: text.optional(),
  instagramUrl: text.optional(),
  rightNavBarButtonTitle: text.optional(),
  rightNavBarButtonLink: text.optional(),
  rightNavBarButtonEnabled: z.boolean().optional(),
  cssScript: script.optional(),
  jsHeadScript: script.optional(),
  jsBodyScript: script.optional(),
});
export type CompanySettings = z.infer<typeof companySettingsSchema>;
