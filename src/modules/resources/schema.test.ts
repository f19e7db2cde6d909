import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../../test/helpers/server.js';

const gw = (extra: Record<string, unknown>) => ({ name: 'R', gateways: [{ server: 'gw.example.net', ...extra }] });
const res = (extra: Record<string, unknown>) => ({ name: 'R', gateways: [], ...extra });

/** Refused documents: what was sent, the field path and the rule the 400 names. */
const REFUSED: [string, Record<string, unknown>, string, string][] = [
  ['name too long', res({ name: 'x'.repeat(129) }), 'name', 'maxLength'],
  ['empty name', res({ name: '' }), 'name', 'minLength'],
  ['weight_cost above 100', res({ weight_cost: 101 }), 'weight_cost', 'maximum'],
  ['weight_cost below 0', res({ weight_cost: -1 }), 'weight_cost', 'minimum'],
  ['grace_period above 20', res({ grace_period: 21 }), 'grace_period', 'maximum'],
  ['enabled not a boolean', res({ enabled: 'sometimes' }), 'enabled', 'type'],
  ['gateway without server', { name: 'R', gateways: [{ port: 5060 }] }, 'gateways.0.server', 'required'],
  ['gateway server too long', gw({ server: 's'.repeat(129) }), 'gateways.0.server', 'maxLength'],
  ['gateway username over 32', gw({ username: 'u'.repeat(33) }), 'gateways.0.username', 'maxLength'],
  ['gateway password over 32', gw({ password: 'p'.repeat(33) }), 'gateways.0.password', 'maxLength'],
  ['gateway realm over 64', gw({ realm: 'r'.repeat(65) }), 'gateways.0.realm', 'maxLength'],
  ['gateway prefix over 64', gw({ prefix: '9'.repeat(65) }), 'gateways.0.prefix', 'maxLength'],
  ['gateway suffix over 64', gw({ suffix: '9'.repeat(65) }), 'gateways.0.suffix', 'maxLength'],
  ['gateway endpoint_type outside the seed enum', gw({ endpoint_type: 'skype' }), 'gateways.0.endpoint_type', 'enum'],
  ['gateway invite_format unknown', gw({ invite_format: 'contact' }), 'gateways.0.invite_format', 'enum'],
  ['gateway channel_selection unknown', gw({ channel_selection: 'random' }), 'gateways.0.channel_selection', 'enum'],
  ['gateway port not a number', gw({ port: 'sip' }), 'gateways.0.port', 'type'],
  ['gateway codec unknown', gw({ codecs: ['PCMU', 'MP3'] }), 'gateways.0.codecs.1', 'enum'],
  ['gateway codecs repeated', gw({ codecs: ['PCMU', 'PCMU'] }), 'gateways.0.codecs', 'uniqueItems'],
  ['gateway caller_id_type unknown', gw({ caller_id_type: 'secret' }), 'gateways.0.caller_id_type', 'enum'],
  ['gateway bypass_media not a boolean', gw({ bypass_media: 'auto' }), 'gateways.0.bypass_media', 'type'],
  ['gateway media rtcp_mux not a boolean', gw({ media: { rtcp_mux: 'maybe' } }), 'gateways.0.media.rtcp_mux', 'type'],
  ['gateway custom header "in" value not a string', gw({ custom_sip_headers: { in: { 'X-A': { no: 1 } } } }), 'gateways.0.custom_sip_headers.in.X-A', 'type'],
  ['invite parameters static not strings', gw({ invite_parameters: { static: [{}] } }), 'gateways.0.invite_parameters.static.0', 'type'],
  // Kazoo names the item that matches none of its forms, not what each form wanted
  ['dynamic invite parameter object without key', gw({ invite_parameters: { dynamic: [{ tag: 'zone' }] } }), 'gateways.0.invite_parameters.dynamic.0', 'not_one_schema_valid'],
  ['dynamic invite parameter neither string nor object', gw({ invite_parameters: { dynamic: [['zone']] } }), 'gateways.0.invite_parameters.dynamic.0', 'not_one_schema_valid'],
  ['dynamic invite parameter outside the variables it reads', gw({ invite_parameters: { dynamic: ['caller_id_number'] } }), 'gateways.0.invite_parameters.dynamic.0', 'not_one_schema_valid'],
  ['invite parameters with a key of their own', gw({ invite_parameters: { always: ['x'] } }), 'gateways.0.invite_parameters.always', 'additionalProperties'],
  ['classifier weight_cost above 100', res({ classifiers: { us: { weight_cost: 500 } } }), 'classifiers.us.weight_cost', 'maximum'],
  ['classifier prefix over 64', res({ classifiers: { us: { prefix: '1'.repeat(65) } } }), 'classifiers.us.prefix', 'maxLength'],
  ['formatter (object) direction unknown', res({ formatters: { to: { direction: 'sideways' } } }), 'formatters.to.direction', 'enum'],
  ['formatter neither object nor array', res({ formatters: { to: 'strip' } }), 'formatters.to', 'not_one_schema_valid'],
  ['media audio codec unknown', res({ media: { audio: { codecs: ['MP3'] } } }), 'media.audio.codecs.0', 'enum'],
  ['media video codec unknown', res({ media: { video: { codecs: ['AV1'] } } }), 'media.video.codecs.0', 'enum'],
  ['media encryption method unknown', res({ media: { encryption: { methods: ['tls'] } } }), 'media.encryption.methods.0', 'enum'],
  ['media bypass_media string outside the deprecated forms', res({ media: { bypass_media: 'sometimes' } }), 'media.bypass_media', 'not_one_schema_valid'],
  ['caller_id_options type unknown', res({ caller_id_options: { type: 'fake' } }), 'caller_id_options.type', 'enum'],
  ['gateway_strategy unknown', res({ gateway_strategy: 'round_robin' }), 'gateway_strategy', 'enum'],
  // Kazoo compiles these only when routing; tel refuses what RE2's linear-time engine does not take when they are written
  ['a rule that does not compile', res({ rules: ['^\\+1(\\d{10}$'] }), 'rules.0', 'error'],
  ['a caller-id rule with a back-reference', res({ cid_rules: ['^(\\d)\\1'] }), 'cid_rules.0', 'error'],
  ['a flat-rate list with a look-ahead', res({ flat_rate_whitelist: '^(?=\\+1)' }), 'flat_rate_whitelist', 'error'],
  ['a classifier regex that does not compile', res({ classifiers: { us: { regex: '(' } } }), 'classifiers.us.regex', 'error'],
];

/** Accepted documents and what is stored. */
const ACCEPTED: [string, Record<string, unknown>, (data: any) => void][] = [
  ['every seed field at once', {
    name: 'Full',
    gateways: [{
      server: 'gw.example.net', endpoint_type: 'freetdm', span: '1', channel_selection: 'descending', port: '5080',
      username: 'u', password: 'p', realm: 'example.net', prefix: '+', suffix: '#', route: 'sip:gw@example.net',
      invite_format: 'e164', force_port: true, bypass_media: false, caller_id_type: 'external', codecs: ['PCMU', 'G729'],
      custom_sip_headers: { in: { 'X-In': 'a' }, out: { 'X-Out': 'b' }, 'X-Both': 'c' }, custom_sip_interface: 'ext',
      format_from_uri: true, from_uri_realm: 'r.example.net', progress_timeout: '6', media: { fax_option: true, rtcp_mux: true },
      invite_parameters: { static: ['npdi', 'foo=bar'], dynamic: ['zone', { tag: 'cic', key: 'custom_channel_vars.cic' }] },
      voipapp_interface: 'v0', voipapp_rr: false,
    }],
    enabled: false, emergency: true, weight_cost: 0, grace_period: 20, flags: ['intl'], ignore_flags: true, require_flags: true,
    rules: ['^\\+1(\\d{10})$'], rules_test: ['^\\+1555'], cid_rules: ['^\\+1'], caller_id_options: { type: 'emergency' },
    carrier_id: 'c1', classifiers: { tollfree_us: { regex: '^\\+18(00|88)\\d{7}$', prefix: '1', suffix: '' } },
    flat_rate_whitelist: '^\\+1', flat_rate_blacklist: '^\\+1900', format_from_uri: true, from_account_realm: true,
    from_uri_realm: 'x.example.net', gateway_strategy: 'random',
    formatters: { to: { direction: 'outbound', regex: '^\\+1(\\d{10})$', prefix: '1' }, from: [{ strip: true }, { value: 'x', match_invite_format: true, suffix: 's' }] },
    media: { audio: { codecs: ['OPUS', 'speex@16000h'] }, bypass_media: 'auto', encryption: { enforce_security: true, methods: ['srtp'] }, fax_option: true, ignore_early_media: true, progress_timeout: 8 },
    custom_sip_headers: { 'X-Reseller-ID': 'r1' },
  }, (d) => {
    expect(d.gateways[0].port).toBe(5080);
    expect(d.gateways[0].progress_timeout).toBe(6);
    expect(d.gateways[0].invite_parameters.dynamic[1]).toEqual({ tag: 'cic', key: 'custom_channel_vars.cic' });
    expect(d.classifiers.tollfree_us).toMatchObject({ emergency: false, enabled: true, weight_cost: 50 });
    expect(d.media.bypass_media).toBe('auto');
  }],
  ['bypass_media as a boolean (the current form)', res({ media: { bypass_media: true } }), (d) => expect(d.media.bypass_media).toBe(true)],
  ['string forms of numbers and booleans are coerced', res({ weight_cost: '75', enabled: 'false' }), (d) => {
    expect(d.weight_cost).toBe(75);
    expect(d.enabled).toBe(false);
  }],
  ['regular expressions RE2 takes', res({ rules: ['^\\+1(\\d{10})$'], cid_rules: ['(?i)^anon'], flat_rate_whitelist: '^\\+1[2-9]', classifiers: { us: { regex: '^\\+?1[[:digit:]]{10}$' } } }), (d) => {
    expect(d.rules).toEqual(['^\\+1(\\d{10})$']);
    expect(d.flat_rate_whitelist).toBe('^\\+1[2-9]');
  }],
  ['custom SIP headers of any name where the gateway in/out form lets them through', gw({ custom_sip_headers: { 'X Bad': 'v' } }), (d) => {
    expect(d.gateways[0].custom_sip_headers).toEqual({ 'X Bad': 'v' });
  }],
  ['formatters under keys outside the pattern, left unchecked as Kazoo does', res({ formatters: { 'to-did': { regex: '(' } } }), (d) => {
    expect(d.formatters['to-did']).toEqual({ regex: '(' });
  }],
  ['unknown fields are kept (Monster UI round trips)', res({ template_name: 'us', ui_metadata: { ui: 'monster-ui' } }), (d) => {
    expect(d.template_name).toBe('us');
    expect(d.ui_metadata).toEqual({ ui: 'monster-ui' });
  }],
];

describe('resource validation: one schema for every nested object', () => {
  let srv: TestServer;
  let base: string;
  beforeAll(async () => {
    srv = await startTestServer();
    base = `/v2/accounts/${srv.master.account_id}/resources`;
  });
  afterAll(async () => srv.close());

  it.each(REFUSED)('refuses %s (400 at the field path)', async (_name, doc, field, rule) => {
    const r = await srv.request('PUT', base, { token: srv.adminToken, data: doc });
    expect(r.status).toBe(400);
    expect(r.body.message).toBe('validation error');
    expect(r.body.data[field]?.[rule], JSON.stringify(r.body.data)).toBeTruthy();
    expect(r.body.data[field][rule].message).toEqual(expect.any(String));
  });

  it.each(ACCEPTED)('accepts %s', async (_name, doc, check) => {
    const r = await srv.request('PUT', base, { token: srv.adminToken, data: doc });
    expect(r.status, JSON.stringify(r.body.data)).toBe(201);
    check(r.body.data);
    const got = await srv.request('GET', `${base}/${r.body.data.id}`, { token: srv.adminToken });
    check(got.body.data);
  });

  it('several failing fields are reported together and nothing is stored', async () => {
    const before = (await srv.request('GET', base, { token: srv.adminToken })).body.data.length;
    const r = await srv.request('PUT', base, {
      token: srv.adminToken,
      data: { name: '', gateways: [{ server: 'ok' }, { port: 1 }], weight_cost: 200 },
    });
    expect(Object.keys(r.body.data).sort()).toEqual(['gateways.1.server', 'name', 'weight_cost']);
    expect((await srv.request('GET', base, { token: srv.adminToken })).body.data.length).toBe(before);
  });

  it('a PATCH that breaks the document is refused the same way', async () => {
    const r = await srv.request('PUT', base, { token: srv.adminToken, data: res({}) });
    const bad = await srv.request('PATCH', `${base}/${r.body.data.id}`, { token: srv.adminToken, data: { classifiers: { us: { weight_cost: 500 } } } });
    expect(bad.status).toBe(400);
    expect(bad.body.data['classifiers.us.weight_cost'].maximum).toBeTruthy();
  });
});
