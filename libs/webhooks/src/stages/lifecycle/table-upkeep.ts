import { ChurnStats, ChurnTable } from '../../store/upkeep.sql';
import {
  UPKEEP_DEAD_RATIO,
  UPKEEP_MIN_DEAD_ROWS,
  UPKEEP_MIN_MODIFIED_ROWS,
  UPKEEP_MODIFIED_RATIO,
} from '../../tuning';

export interface UpkeepLimits {
  minDeadRows: number;
  minModifiedRows: number;
}

export const UPKEEP_LIMITS: UpkeepLimits = {
  minDeadRows: UPKEEP_MIN_DEAD_ROWS,
  minModifiedRows: UPKEEP_MIN_MODIFIED_ROWS,
};

export type Upkeep = { table: ChurnTable; work: 'vacuum' | 'analyze' };

/**
 * What each churned table needs now: VACUUM (ANALYZE) when its dead rows pile up, ANALYZE alone when its
 * statistics are missing or stale. Without statistics the planner guesses a table's size from its pages, and
 * a guess can turn a look-up by key into a walk of a bloated table.
 */
export function upkeepOf(stats: ChurnStats[], limits: UpkeepLimits = UPKEEP_LIMITS): Upkeep[] {
  return stats.flatMap((s): Upkeep[] => {
    if (s.dead >= limits.minDeadRows && s.dead >= s.live * UPKEEP_DEAD_RATIO)
      return [{ table: s.table, work: 'vacuum' }];
    const stale =
      (s.never_analyzed && s.modified > 0) ||
      (s.modified >= limits.minModifiedRows && s.modified >= s.live * UPKEEP_MODIFIED_RATIO);
    return stale ? [{ table: s.table, work: 'analyze' }] : [];
  });
}
