// A real OpenID Connect provider for the sign-in tests: panva's oidc-provider
// (npm, pinned in package.json) with its own login page, which takes any
// login name and any password. Each login name is an account whose subject
// is the name, whose preferred_username is the name and whose email is
// NAME@example.org, verified unless the name ends with "-unverified".
//
// Usage: node oidc_provider.mjs PORT CLIENT_ID CLIENT_SECRET
// Prints "listening ISSUER" once it serves. Its one client may come back to
// any ladderboard callback on the loopback address or on "testserver" (the
// in-process test client's host), whatever the port.
import Provider from 'oidc-provider';

const [port, clientId, clientSecret] = process.argv.slice(2);
const issuer = `http://127.0.0.1:${port}`;
const CALLBACK = /^http:\/\/(127\.0\.0\.1(:\d+)?|testserver)\/account\/oidc\/[a-z0-9-]+\/callback$/;

const provider = new Provider(issuer, {
  clients: [{
    client_id: clientId,
    client_secret: clientSecret,
    redirect_uris: ['http://testserver/account/oidc/test/callback'],
    grant_types: ['authorization_code'],
    response_types: ['code'],
  }],
  claims: {
    openid: ['sub'],
    email: ['email', 'email_verified'],
    profile: ['preferred_username', 'name'],
  },
  cookies: { keys: ['a test key that is not a secret'] },
  pkce: { required: () => true },
  features: { devInteractions: { enabled: true } },
  async findAccount(ctx, id) {
    return {
      accountId: id,
      async claims() {
        return {
          sub: id,
          preferred_username: id,
          name: id,
          email: `${id.replace(/-unverified$/, '')}@example.org`,
          email_verified: !id.endsWith('-unverified'),
        };
      },
    };
  },
  // The client is this test's own: its grant is given without a consent page.
  async loadExistingGrant(ctx) {
    const grant = new ctx.oidc.provider.Grant({
      clientId: ctx.oidc.client.clientId,
      accountId: ctx.oidc.session.accountId,
    });
    grant.addOIDCScope('openid email profile');
    grant.addOIDCClaims(['email', 'email_verified', 'preferred_username', 'name']);
    await grant.save();
    return grant;
  },
});
provider.Client.prototype.redirectUriAllowed = (uri) => CALLBACK.test(uri);

provider.listen(Number(port), '127.0.0.1', () => {
  console.log(`listening ${issuer}`);
});
