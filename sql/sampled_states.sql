-- Sampled states: which recorded states of a trajectory enter its bag under each tokenization frequency.
--   full:     every recorded state.
--   interval: every f-th recorded state, f = n_players, counted on the recorded-state index
--             ((state_idx + 1) % f = 0, i.e. the states after turns f, 2f, ...); the terminal state always.
--   random:   each state with probability 1/n_players, decided by hash(run_seed, game_id, state_idx) < 2^64/n.
-- The hash is splitmix64: output number key+1 of the generator seeded with run_seed, where
-- key = game_id * 2^32 + state_idx, all arithmetic mod 2^64 (UHUGEINT holds the 128-bit products).
-- tests/helpers/sampling.py computes the same hash in Python; the two must stay identical.
-- Inputs: states(game, game_id, state_idx, is_terminal), games(game, game_id, n_players). Parameter: $run_seed.
WITH seeded AS (
    SELECT (($run_seed::HUGEINT % 18446744073709551616) + 18446744073709551616)
               % 18446744073709551616 AS seed
),
keyed AS (
    SELECT s.game, s.game_id, s.state_idx, s.is_terminal, g.n_players::INTEGER AS n_players,
           ((((s.game_id::HUGEINT * 4294967296 + s.state_idx) % 18446744073709551616 + 18446744073709551616)
               % 18446744073709551616) + 1)::UHUGEINT AS counter
    FROM states AS s
    JOIN games AS g ON g.game = s.game AND g.game_id = s.game_id
),
step1 AS (
    SELECT keyed.*,
           (seeded.seed::UHUGEINT + (counter * 11400714819323198485::UHUGEINT) % 18446744073709551616::UHUGEINT)
               % 18446744073709551616::UHUGEINT AS z
    FROM keyed CROSS JOIN seeded
),
step2 AS (
    SELECT * REPLACE ((xor(z, z >> 30) * 13787848793156543929::UHUGEINT) % 18446744073709551616::UHUGEINT AS z)
    FROM step1
),
step3 AS (
    SELECT * REPLACE ((xor(z, z >> 27) * 10723151780598845931::UHUGEINT) % 18446744073709551616::UHUGEINT AS z)
    FROM step2
),
hashed AS (
    SELECT game, game_id, state_idx, is_terminal, n_players, xor(z, z >> 31) AS h
    FROM step3
)
SELECT game, frequency, game_id::BIGINT AS game_id, state_idx::INTEGER AS state_idx
FROM (
    SELECT game, 'full' AS frequency, game_id, state_idx FROM hashed
    UNION ALL
    SELECT game, 'interval', game_id, state_idx FROM hashed
    WHERE (state_idx + 1) % n_players = 0 OR is_terminal
    UNION ALL
    SELECT game, 'random', game_id, state_idx FROM hashed
    WHERE h * n_players < 18446744073709551616::UHUGEINT
)
ORDER BY game, frequency, game_id, state_idx
