import { useState } from 'preact/hooks';
import { api, session, setSession } from '../session.js';
import { ErrorBox, Field, useAction, useData, Loading } from '../ui.js';
import { go } from '../router.js';

/** Sign in with e-mail and password. */
export function SignIn() {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const action = useAction();
  const submit = (e: Event) => {
    e.preventDefault();
    void action.run(async () => {
      const { token } = await api.login(email, password);
      setSession({ token, email, companyUuid: null, companyName: null });
      go('#/company');
    });
  };
  return (
    <section aria-labelledby="sign-in-title">
      <h1 id="sign-in-title">Sign in</h1>
      <form onSubmit={submit} class="inline" aria-label="Sign in">
        <Field label="E-mail" name="email" type="email" value={email} onInput={setEmail} required />
        <Field label="Password" name="password" type="password" value={password} onInput={setPassword} required />
        <button type="submit" disabled={action.busy}>
          Sign in
        </button>
      </form>
      <ErrorBox error={action.error} />
    </section>
  );
}

/** The companies the user belongs to; selecting one makes every next request act for it. */
export function SelectCompany() {
  const me = useData(() => api.get('/api/v2/auth/me'), [session().token]);
  const action = useAction();
  if (me.loading) return <Loading what="your companies" />;
  if (me.error || !me.data) return <ErrorBox error={me.error} />;
  const choose = (uuid: string, name: string) =>
    action.run(async () => {
      await api.selectCompany(uuid);
      setSession({ companyUuid: uuid, companyName: name });
      go('#/objects');
    });
  return (
    <section aria-labelledby="company-title">
      <h1 id="company-title">Select a company</h1>
      {me.data.companies.length === 0 ? <p>You belong to no company yet.</p> : null}
      <ul>
        {me.data.companies.map((c) => (
          <li key={c.uuid}>
            <button type="button" class={c.uuid === session().companyUuid ? '' : 'secondary'} onClick={() => void choose(c.uuid, c.name)} aria-pressed={c.uuid === session().companyUuid}>
              {c.name}
            </button>{' '}
            <span class="muted">
              {c.subdomain} · {c.role}
            </span>
          </li>
        ))}
      </ul>
      <ErrorBox error={action.error} />
    </section>
  );
}
