-- Trajectory bags: for each tokenization frequency, the token counts of a game's sampled states, summed,
-- with p = count / total count of that (frequency, game) bag.
-- Inputs: state_tokens(game, game_id, state_idx, token, count), sampled_states(game, frequency, game_id, state_idx).
WITH sampled AS (
    SELECT s.game, s.frequency, s.game_id, t.token, sum(t.count)::BIGINT AS count
    FROM sampled_states AS s
    JOIN state_tokens AS t ON t.game = s.game AND t.game_id = s.game_id AND t.state_idx = s.state_idx
    GROUP BY s.game, s.frequency, s.game_id, t.token
)
SELECT game, frequency, game_id, token, count,
       count / sum(count) OVER (PARTITION BY game, frequency, game_id) AS p
FROM sampled
ORDER BY game, frequency, game_id, token
