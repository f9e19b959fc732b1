import { createApiHandler } from '../../shared/http/middleware';
import * as storage from '../../shared/operations/storage';
import { STORAGE_ROUTES } from '../../shared/routes/storage-routes';

export const handler = createApiHandler('storage', STORAGE_ROUTES, storage);
