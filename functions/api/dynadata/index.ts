import '../../shared/domain/dynadata/builtin-functions';
import { assertCursorKeyConfigured } from '../../shared/domain/dynadata/cursor-key';
import { createApiHandler } from '../../shared/http/middleware';
import * as dynadata from '../../shared/operations/dynadata';
import { DYNADATA_ROUTES } from '../../shared/routes/dynadata-routes';
import { DYNADATA_TYPE_ROUTES } from '../../shared/routes/dynadata-type-routes';

// Lists sign their cursors: without a configured key the function refuses to start.
assertCursorKeyConfigured();

export const handler = createApiHandler('dynadata', [...DYNADATA_TYPE_ROUTES, ...DYNADATA_ROUTES], dynadata);
