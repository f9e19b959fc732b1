/** The most active (unrevoked) API keys a company may hold; revoked keys do not count. */
export const MAX_ACTIVE_API_KEYS = 100;
