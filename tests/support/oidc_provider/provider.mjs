// A real OpenID Connect provider (the certified `oidc-provider` package) for Lookout's
// sign-in tests. Usage: node provider.mjs CONFIG.json
//
// CONFIG.json: {"port": 0, "client": {"client_id", "client_secret", "redirect_uris",
// "post_logout_redirect_uris"}, "users_file": "users.json", "advertise_wrong_key": false}
// users.json (read again at every sign-in, so a test can move a user between groups):
// {"alice": {"password": "...", "name": "...", "email": "...", "groups": ["operators"]}}
//
// Every start signs with a new RSA key under a new key id: a restart is a key rotation.
// With advertise_wrong_key the JWKS endpoint publishes another key under the signing
// key's id, so every ID token's signature fails against the advertised key.
// Prints "listening on <issuer>" once it answers.

import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';

import Provider from 'oidc-provider';

const config = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const issuer = `http://127.0.0.1:${config.port}`;

function newSigningKey(kid) {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return { ...privateKey.export({ format: 'jwk' }), kid, alg: 'RS256', use: 'sig' };
}

function publicPart({ d, p, q, dp, dq, qi, ...rest }) {
  return rest;
}

const signingKey = newSigningKey(randomBytes(8).toString('hex'));
const advertisedKeys = config.advertise_wrong_key
  ? [publicPart(newSigningKey(signingKey.kid))]
  : null;

function users() {
  return JSON.parse(readFileSync(config.users_file, 'utf8'));
}

function escapeHtml(text) {
  return String(text).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function page(title, body) {
  return `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head>
<body><h1>${escapeHtml(title)}</h1>${body}</body></html>`;
}

function loginForm(uid, error) {
  return page('Test identity provider: sign in', `
${error ? `<p role="alert">${escapeHtml(error)}</p>` : ''}
<form method="post" action="/interaction/${escapeHtml(uid)}">
  <p><label for="login">User name</label> <input id="login" name="login" autofocus></p>
  <p><label for="password">Password</label> <input id="password" name="password" type="password"></p>
  <button type="submit">Sign in</button>
</form>`);
}

async function formBody(req) {
  const chunks = [];
  for await (const chunk of req) chunks.push(chunk);
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}

const provider = new Provider(issuer, {
  clients: [
    {
      ...config.client,
      grant_types: ['authorization_code'],
      response_types: ['code'],
      token_endpoint_auth_method: 'client_secret_basic',
    },
  ],
  jwks: { keys: [signingKey] },
  cookies: { keys: [randomBytes(32).toString('hex')] },
  scopes: ['openid', 'profile', 'email', 'groups'],
  claims: {
    openid: ['sub'],
    profile: ['name', 'preferred_username'],
    email: ['email', 'email_verified'],
    groups: ['groups'],
  },
  pkce: { required: () => true },
  features: {
    devInteractions: { enabled: false },
    rpInitiatedLogout: {
      enabled: true,
      async logoutSource(ctx, form) {
        ctx.body = page('Sign out of the test identity provider?', `${form}
<button type="submit" form="op.logoutForm" value="yes" name="logout">Yes, sign me out</button>`);
      },
      async postLogoutSuccessSource(ctx) {
        ctx.body = page('Signed out', '<p>You are signed out.</p>');
      },
    },
  },
  interactions: { url: (ctx, interaction) => `/interaction/${interaction.uid}` },
  // The test client is trusted: no consent screen, the requested scopes are granted.
  async loadExistingGrant(ctx) {
    const grant = new ctx.oidc.provider.Grant({
      clientId: ctx.oidc.client.clientId,
      accountId: ctx.oidc.session.accountId,
    });
    grant.addOIDCScope(ctx.oidc.requestParamScopes ? [...ctx.oidc.requestParamScopes].join(' ') : 'openid');
    await grant.save();
    return grant;
  },
  async findAccount(ctx, id) {
    const user = users()[id];
    if (!user) return undefined;
    return {
      accountId: id,
      async claims() {
        return {
          sub: id,
          preferred_username: id,
          name: user.name,
          email: user.email,
          email_verified: true,
          groups: user.groups,
        };
      },
    };
  },
  async renderError(ctx, out) {
    ctx.type = 'html';
    ctx.body = page('Test identity provider: error', `<pre>${escapeHtml(JSON.stringify(out))}</pre>`);
  },
});
// Plain http on 127.0.0.1, for the tests only.
provider.proxy = false;

provider.use(async (ctx, next) => {
  const match = ctx.path.match(/^\/interaction\/([^/]+)$/);
  if (match && ctx.method === 'GET') {
    await provider.interactionDetails(ctx.req, ctx.res);
    ctx.type = 'html';
    ctx.body = loginForm(match[1]);
    return;
  }
  if (match && ctx.method === 'POST') {
    await provider.interactionDetails(ctx.req, ctx.res);
    const body = await formBody(ctx.req);
    const login = body.get('login') || '';
    const user = users()[login];
    if (!user || user.password !== body.get('password')) {
      ctx.type = 'html';
      ctx.body = loginForm(match[1], 'Wrong user name or password.');
      return;
    }
    await provider.interactionFinished(ctx.req, ctx.res, { login: { accountId: login } }, {
      mergeWithLastSubmission: false,
    });
    return;
  }
  await next();
  if (advertisedKeys && ctx.path === '/jwks' && ctx.status === 200) {
    ctx.body = { keys: advertisedKeys };
  }
});

const server = provider.listen(config.port, '127.0.0.1', () => {
  process.stdout.write(`listening on ${issuer}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
