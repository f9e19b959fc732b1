import { describe, expect, it } from 'vitest';
import type { WebhookEndpointRecord } from '../../functions/shared/data/webhook-endpoints';
import { endpointSettingsChange } from '../../functions/shared/domain/events/endpoints';
import { signingSecrets } from '../../functions/shared/domain/messages/webhooks';

const now = new Date('2026-11-23T10:00:00.000Z');
const endpoint: WebhookEndpointRecord = {
  id: 'we_1',
  companyId: 'co_1',
  url: 'https://hooks.example.com/a',
  events: ['*'],
  description: 'old',
  secret: 'whsec_new',
  status: 'enabled',
  createdAt: '2026-11-20T00:00:00.000Z',
  updatedAt: '2026-11-20T00:00:00.000Z',
};

describe('the secrets that sign a delivery', () => {
  it('are the secret alone without a rotation', () => {
    expect(signingSecrets(endpoint, now)).toEqual(['whsec_new']);
  });

  it('add the previous secret until its overlap ends, and drop it from that instant', () => {
    const rotated = {
      ...endpoint,
      previousSecret: 'whsec_old',
      previousSecretExpiresAt: '2026-11-23T10:00:01.000Z',
    };
    expect(signingSecrets(rotated, now)).toEqual(['whsec_new', 'whsec_old']);
    expect(signingSecrets(rotated, new Date('2026-11-23T10:00:01.000Z'))).toEqual(['whsec_new']);
  });
});

describe('the change a PATCH of an endpoint makes', () => {
  it('replaces the members given, removes a null description, and sets updatedAt', () => {
    expect(
      endpointSettingsChange(
        endpoint,
        { events: ['ping', 'ping', 'transcode.done'], description: null },
        now,
      ),
    ).toEqual({
      set: { events: ['ping', 'transcode.done'], updatedAt: now.toISOString() },
      remove: ['description'],
    });
  });

  it('changes nothing for an empty body or an endpoint already in the asked state', () => {
    expect(endpointSettingsChange(endpoint, {}, now)).toBeUndefined();
    expect(endpointSettingsChange(endpoint, { enabled: true }, now)).toBeUndefined();
  });

  it('re-enables a disabled endpoint with its failure record cleared', () => {
    const disabled: WebhookEndpointRecord = {
      ...endpoint,
      status: 'disabled',
      disabledReason: 'Deliveries failed for 72 h; last answer: 503.',
      disabledAt: '2026-11-22T00:00:00.000Z',
      failingSince: '2026-11-19T00:00:00.000Z',
      failingMs: 259_200_000,
      lastFailedAt: '2026-11-22T00:00:00.000Z',
    };
    expect(endpointSettingsChange(disabled, { enabled: true }, now)).toEqual({
      set: { status: 'enabled', updatedAt: now.toISOString() },
      remove: ['disabledReason', 'disabledAt', 'failingSince', 'failingMs', 'lastFailedAt'],
    });
  });

  it('disables an enabled endpoint with the reason stated', () => {
    expect(endpointSettingsChange(endpoint, { enabled: false }, now)?.set).toEqual({
      status: 'disabled',
      disabledReason: 'Disabled through the API.',
      disabledAt: now.toISOString(),
      updatedAt: now.toISOString(),
    });
  });
});
