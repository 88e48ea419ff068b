"""Tic-tac-toe's exact evaluation function, its SVD/HOSVD compression and exact agent outcomes.

Implements "Information Compression and Performance Evaluation of Tic-Tac-Toe's Evaluation Function
Using Singular Value Decomposition" (../shared/papers/tictactoe_svd_evaluation.txt); pure numpy.
"""
