import { describe, expect, it } from 'vitest';
import { webhookUrlProblem } from '../../functions/shared/domain/messages/webhooks';
import {
  classifyAddress,
  normalizedOutboundUrl,
  outboundUrlProblem,
} from '../../functions/shared/outbound-addresses';

/** IPv6 spellings that carry a refused IPv4 address, as URLs give them and as Node normalises them. */
const refusedV6 = [
  '::ffff:169.254.169.254',
  '::ffff:a9fe:a9fe',
  '0:0:0:0:0:ffff:a9fe:a9fe',
  '::ffff:0:a9fe:a9fe',
  '::ffff:10.0.0.1',
  '::ffff:a00:1',
  '::ffff:c0a8:101',
  '::ffff:0.0.0.0',
  '::a9fe:a9fe',
  '::169.254.169.254',
  '::a00:1',
  '2001:db8::1',
  '64:ff9b::a9fe:a9fe',
  '64:ff9b::169.254.169.254',
  '64:ff9b::c0a8:1',
  '2002:a9fe:a9fe::',
  '2002:a00:1::1',
  '2002:c0a8:101:0:0:0:0:1',
  'fec0::1',
  'feff::1',
  'fc00::1',
  'fdff:ffff::1',
  'fe80::1%eth0',
  'febf::1',
  'ff02::1',
  '0::0',
  '::',
];

const loopbackV6 = [
  '::1',
  '0:0:0:0:0:0:0:1',
  '::ffff:127.0.0.1',
  '::ffff:7f00:1',
  '64:ff9b::7f00:1',
  '2002:7f00:1::',
];

const publicV6 = [
  '2606:4700::1111',
  '::ffff:8.8.8.8',
  '::ffff:808:808',
  '64:ff9b::808:808',
  '2002:808:808::1',
];

describe('webhook address classes', () => {
  it('refuses the reserved addresses a hostile tenant set as webhooks', () => {
    for (const url of [
      'https://198.18.0.1/hook',
      'https://192.0.2.1/hook',
      'https://192.0.0.170/hook',
      'https://[64:ff9b:1::a9fe:a9fe]/hook',
      'https://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/hook',
    ]) {
      expect(webhookUrlProblem(url, { allowLoopback: true }), url).toBeDefined();
    }
  });

  it('refuses IPv6 forms of private, link-local and reserved addresses', () => {
    for (const a of refusedV6) expect(classifyAddress(a), a).toBe('refused');
  });

  it('classes IPv6 forms of loopback as loopback', () => {
    for (const a of loopbackV6) expect(classifyAddress(a), a).toBe('loopback');
  });

  it('classes IPv6 forms of public addresses as public', () => {
    for (const a of publicV6) expect(classifyAddress(a), a).toBe('public');
  });

  it('refuses URLs whose host Node normalises to an IPv4-carrying IPv6 form', () => {
    for (const url of [
      'https://[::ffff:169.254.169.254]/latest/meta-data',
      'https://[::ffff:10.0.0.1]/',
      'https://[64:ff9b::169.254.169.254]/',
      'https://[2002:a9fe:a9fe::1]/',
      'https://[fec0::1]/',
    ]) {
      expect(new URL(url).hostname).not.toContain('.');
      expect(webhookUrlProblem(url, { allowLoopback: true }), url).toBeDefined();
    }
    expect(webhookUrlProblem('https://[::ffff:127.0.0.1]/', { allowLoopback: false })).toBeDefined();
    expect(webhookUrlProblem('https://[2606:4700::1111]/', { allowLoopback: false })).toBeUndefined();
  });
});

describe('outbound URLs as written', () => {
  const policy = { allowLoopback: false, deniedLoopbackPorts: [] };
  it.each([
    ['https://example.com/a\r\nX-Injected: 1', 'white space or control characters'],
    ['https://example.com/a\tb', 'white space or control characters'],
    [' https://example.com/', 'white space or control characters'],
    ['https://example.com/ ', 'white space or control characters'],
    ['https://example.com/\u00a0', 'white space or control characters'],
    ['https://example.com/\u200b', 'white space or control characters'],
    ['https:///example.com', 'host'],
    ['https:example.com', 'host'],
    ['https:\\\\example.com', 'backslash'],
    ['https://example.com:0/', 'port 0'],
    ['https://@example.com/', 'credentials'],
    ['https://user:pw@example.com/', 'credentials'],
    ['https://example.com/#frag', 'fragment'],
  ])('refuses %j', (raw, reason) => {
    expect(outboundUrlProblem(raw, policy)).toContain(reason);
  });

  it('stores what the parser serializes', () => {
    expect(outboundUrlProblem('HTTPS://Example.COM:443/a/../b?x=1', policy)).toBeUndefined();
    expect(normalizedOutboundUrl('HTTPS://Example.COM:443/a/../b?x=1')).toBe('https://example.com/b?x=1');
  });
});
