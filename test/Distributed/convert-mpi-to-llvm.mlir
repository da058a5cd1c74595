// RUN: linea-opt %s --linea-convert-mpi-to-llvm -split-input-file | FileCheck %s

// Open MPI: the communicator is the address of ompi_mpi_comm_world; the
// size comes from MPI_Comm_size (which MLIR 22 does not lower), and the sum
// is libmpi's `ompi_mpi_op_sum` (MLIR 22 names it `ompi_mpi_sum`).

// CHECK-DAG: llvm.func @MPI_Comm_size(!llvm.ptr, !llvm.ptr) -> i32
// CHECK-DAG: llvm.mlir.global external @ompi_mpi_op_sum()
// CHECK-NOT: @ompi_mpi_sum
// CHECK-LABEL: func.func @sizes(
// CHECK: %[[WORLD:.*]] = llvm.mlir.addressof @ompi_mpi_comm_world : !llvm.ptr
// CHECK: %[[HANDLE:.*]] = llvm.ptrtoint %[[WORLD]] : !llvm.ptr to i64
// CHECK: %[[COMM:.*]] = llvm.inttoptr %[[HANDLE]] : i64 to !llvm.ptr
// CHECK: %[[SLOT:.*]] = llvm.alloca %{{.*}} x i32
// CHECK: llvm.call @MPI_Comm_size(%[[COMM]], %[[SLOT]])
// CHECK: %[[SIZE:.*]] = llvm.load %[[SLOT]] : !llvm.ptr -> i32
// CHECK: llvm.mlir.addressof @ompi_mpi_op_sum
// CHECK: llvm.call @MPI_Allreduce(
// CHECK: return %[[SIZE]]
module attributes {dlti.map = #dlti.map<"MPI:Implementation" = "OpenMPI">} {
  func.func @sizes(%send: memref<4xf32>, %recv: memref<4xf32>) -> i32 {
    %world = mpi.comm_world : !mpi.comm
    %size = mpi.comm_size(%world) : i32
    mpi.allreduce(%send, %recv, MPI_SUM, %world) : memref<4xf32>, memref<4xf32>
    return %size : i32
  }
}

// -----

// MPICH: integer handles.

// CHECK-DAG: llvm.func @MPI_Comm_size(i32, !llvm.ptr) -> i32
// CHECK-LABEL: func.func @mpich(
// CHECK: %[[HANDLE:.*]] = llvm.mlir.constant(1140850688 : i64) : i64
// CHECK: %[[COMM:.*]] = llvm.trunc %[[HANDLE]] : i64 to i32
// CHECK: llvm.call @MPI_Comm_size(%[[COMM]], %{{.*}})
module attributes {dlti.map = #dlti.map<"MPI:Implementation" = "MPICH">} {
  func.func @mpich() -> i32 {
    %world = mpi.comm_world : !mpi.comm
    %size = mpi.comm_size(%world) : i32
    return %size : i32
  }
}
