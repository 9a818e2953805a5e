// Which of a batch of costs the member's budget covers, each on top of `held` and of the ones before
// it that were covered: the answers asking the platform once per cost would give, in far fewer
// questions. check-budget-by-cost only says whether the budget covers an amount (remaining >= amount),
// so every answer bounds the remaining budget from one side: a "yes" covers every smaller amount, a
// "no" refuses every larger one. The whole batch is asked first (one question when it fits, the
// usual case); if it does not, halving finds the longest covered prefix in log2(n) more, and what
// follows is mostly answered by the bounds (with equal costs, entirely). 50 jobs: 7 questions, not 50.

/** Whether the budget covers `amount` (1/10000 USD): one question to the platform. */
type Covers = (amount: number) => Promise<boolean>;

export async function coveredInOrder(held: number, costs: readonly number[], ask: Covers): Promise<boolean[]> {
  let covered = -Infinity; // the largest amount known to be covered
  let refused = Infinity; // the smallest amount known not to be
  const covers = async (amount: number): Promise<boolean> => {
    if (amount <= covered) return true;
    if (amount >= refused) return false;
    const yes = await ask(amount);
    if (yes) covered = amount;
    else refused = amount;
    return yes;
  };

  // Sums of the first k costs: the amounts the in-order check asks while every job before fits.
  const prefix = [held];
  for (const cost of costs) prefix.push(prefix[prefix.length - 1] + cost);
  if (costs.length > 1 && !(await covers(prefix[costs.length]))) {
    // prefix[lo] is covered (or lo = 0), prefix[hi] is not. A free job (cost 0) leaves a sum as it is,
    // so the sums only grow and halving is sound.
    let lo = 0;
    let hi = costs.length;
    while (hi - lo > 1) {
      const mid = (lo + hi) >> 1;
      if (await covers(prefix[mid])) lo = mid;
      else hi = mid;
    }
  }

  // In order, each on top of what the covered ones before it took; the bounds answer most of it.
  const enough: boolean[] = [];
  let taken = held;
  for (const cost of costs) {
    const yes = await covers(taken + cost);
    enough.push(yes);
    if (yes) taken += cost;
  }
  return enough;
}
