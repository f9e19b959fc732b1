/** A contact's thread (`GET /v1/contacts/{contactId}/messages`): 20 messages a page by default, at most 100. */
export const DEFAULT_THREAD_PAGE = 20;
export const MAX_THREAD_PAGE = 100;
