"""engines.chance makes the same draws as random.Random's own methods."""

import random

from engines.chance import _STEPS, _fisher_yates_steps, shuffle


def test_shuffle_is_random_shuffle_draw_for_draw():
    for seed in range(200):
        for size in (0, 1, 2, 3, 7, 10, 33, 58, 64, 65, 130, 255, 256, 300):
            ours, theirs = random.Random(seed), random.Random(seed)
            cards = list(range(size))
            expected = cards[:]
            theirs.shuffle(expected)
            shuffle(ours, cards)
            assert cards == expected
            assert ours.random() == theirs.random()  # the generators are in the same state afterwards


def test_the_step_table_is_each_size_steps():
    assert [_STEPS[size] for size in (0, 1, 2, 3)] == [(), (), ((1, 2),), ((2, 2), (1, 2))]
    for size, steps in enumerate(_STEPS):
        assert steps == _fisher_yates_steps(size)


def test_a_random_subclass_uses_its_own_shuffle():
    class Fixed(random.Random):
        def shuffle(self, x):
            x.reverse()

    cards = [1, 2, 3]
    shuffle(Fixed(0), cards)
    assert cards == [3, 2, 1]
