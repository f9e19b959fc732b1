import { mintJwt } from '../../../auth/jwt-mint';
import { currentSigningKey, loadKeySet } from '../../../auth/signing-keys';
import { AppError } from '../../../errors';
import * as z from '../../../zod';
import { defineAction } from './registry';

/**
 * `actions/security/auth/jwt/generate`: mints a `/v1` token for the run's company through the one minting
 * module the operator CLI uses. Beyond the spec, a scopes list must be a subset of the scopes of the
 * credential that started the run (`jwt_scopes_exceed_caller`): a workflow never widens access.
 */
export const jwtGenerate = defineAction({
  name: 'actions/security/auth/jwt/generate',
  scope: 'workflows:run',
  maxDurationMs: 5_000,
  input: z
    .object({
      ips: z.array(z.string()).optional(),
      dur: z.number().int().optional(),
      scopes: z.array(z.string()).optional(),
      advanced: z.boolean().optional(),
      kind: z.string().min(1).max(32).optional(),
    })
    .strict(),
  run: async (input, ctx) => {
    const wider = input.advanced ? (input.scopes ?? []).filter((s) => !ctx.callerScopes.includes(s)) : [];
    const minted = await mintJwt(
      { ...input, companyId: ctx.companyId, advanced: input.advanced ?? false },
      currentSigningKey(await loadKeySet()),
      ctx.now,
    );
    // Checked after minting's own rules, so unknown names are `jwt_invalid_scopes` first.
    if (wider.length > 0) {
      throw new AppError(
        'jwt_scopes_exceed_caller',
        `The credential that started the run does not hold: ${wider.join(', ')}.`,
      );
    }
    return { token: minted.token, expiresAt: minted.expiresAt };
  },
});
