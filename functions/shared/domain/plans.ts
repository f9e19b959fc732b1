import { listPlans } from '../data/plans';
import type { Plan } from '../types/plans';

/** The public plan catalog, cheapest first (ties by id); only plans on sale with `sellableOnly`. */
export const listCatalogPlans = async (options: { sellableOnly: boolean }): Promise<Plan[]> =>
  (await listPlans())
    .filter((plan) => !options.sellableOnly || plan.sellable)
    .sort((a, b) => a.price.amount - b.price.amount || a.id.localeCompare(b.id));
