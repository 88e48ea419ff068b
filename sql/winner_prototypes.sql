-- Winner prototypes: for each (game, frequency, seat), the normalised sum of the token counts of the
-- trajectory bags of the games that seat won (draws excluded), as the reference P-NNS code builds them.
-- Integer sums keep the result identical across runs whatever the thread count.
-- Inputs: trajectory_bags(game, frequency, game_id, token, count, p), games(game, game_id, winner).
WITH won AS (
    SELECT b.game, b.frequency, g.winner AS seat, b.token, b.count
    FROM trajectory_bags AS b
    JOIN games AS g ON g.game = b.game AND g.game_id = b.game_id
    WHERE g.winner IS NOT NULL
),
sums AS (
    SELECT game, frequency, seat, token, sum(count)::BIGINT AS count
    FROM won
    GROUP BY game, frequency, seat, token
)
SELECT game, frequency, seat::TINYINT AS seat, token, count,
       count / sum(count) OVER (PARTITION BY game, frequency, seat) AS p
FROM sums
ORDER BY game, frequency, seat, token
